/* A catalogue of C-ABI misuse against the cabi library (tests/c/cabi.py): NULL tensors and result
 * pointers, NULL data and shape arrays, bad ndim, dtype, lanes and device, non-compact strides,
 * misaligned and huge byte_offset, negative, overflowing and mismatched dims, bad result tensors
 * of the _into entries, bad _result_shapes arguments, cabi_release misuse, the thread-local last
 * error, and an out-of-memory recursion. Each numbered case checks the status the docs give
 * (docs/c-abi.md), that every result pointer is NULL and no caller tensor was written, that
 * cabi_last_error() names the export and the problem, and that a good call afterwards computes
 * the same results as before and clears the message. A few cases check what the docs say is
 * accepted (compact strides, any stride on a size-1 dim, empty tensors, what _result_shapes does
 * not read).
 * Usage: misuse   (prints "case N: ok" or "case N: FAILED <why>" per case, then "CASES n FAILED f";
 * exits 1 if any case failed) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "inputs.h"

/* Under AddressSanitizer the out-of-memory case needs malloc to return NULL rather than abort. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MISUSE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(MISUSE_ASAN)
const char* __asan_default_options(void);
const char* __asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

#define B 3
#define SENTINEL_SHAPE 12345

static int cases = 0, failures = 0;

/* The good arguments of affine, sumsq and tree_grad, and affine's results for them. */
static float x[B * 4], w[12], b[3], tw3[9], leaves[9];
static double v[5];
static int64_t xshape[2] = {B, 4}, wshape[2] = {4, 3}, bshape[1] = {3}, vshape[1] = {5};
static int64_t w3shape[2] = {3, 3}, lshape[2] = {3, 3}, nshape[1] = {3};
static int64_t left[3] = {1, -1, -1}, right[3] = {2, -1, -1};
static float ref_y[B * 3];
static int64_t ref_idx[B];

/* What the library must set to NULL: result slots start out pointing here. */
static DLTensor sentinel;

static DLTensor good_x(void) { return make_tensor(x, 2, xshape, 2, 32); }
static DLTensor good_w(void) { return make_tensor(w, 2, wshape, 2, 32); }
static DLTensor good_b(void) { return make_tensor(b, 1, bshape, 2, 32); }
static DLTensor good_v(void) { return make_tensor(v, 1, vshape, 2, 64); }

/* Prints the verdict of the next case: ok when `problem` is NULL. */
static void report(const char* what, const char* problem) {
  cases++;
  if (problem == NULL) {
    printf("case %d: ok\n", cases);
  } else {
    failures++;
    printf("case %d: FAILED %s: %s\n", cases, what, problem);
  }
  fflush(stdout);
}

/* The message of a failed call: non-empty, naming the export (`prefix`) and containing `want`. */
static const char* check_message(const char* prefix, const char* want) {
  static char problem[1024];
  const char* msg = cabi_last_error();
  if (msg == NULL) return "cabi_last_error() is NULL";
  if (msg[0] == '\0') return "cabi_last_error() is empty";
  if (strncmp(msg, prefix, strlen(prefix)) != 0 || (want != NULL && strstr(msg, want) == NULL)) {
    snprintf(problem, sizeof problem, "message \"%s\" should start with \"%s\" and contain \"%s\"", msg, prefix,
             want ? want : "");
    return problem;
  }
  return NULL;
}

/* The first problem found: `a`, else `b`. */
static const char* either(const char* a, const char* b) { return a ? a : b; }

static const char* check_status(int status, int want) {
  static char problem[64];
  if (status == want) return NULL;
  snprintf(problem, sizeof problem, "status %d, expected %d", status, want);
  return problem;
}

/* A good affine call after the case: status 0, the reference results, and an empty message. */
static const char* good_call(void) {
  static char problem[512];
  DLTensor tx = good_x(), tw = good_w(), tb = good_b();
  DLTensor *y = NULL, *idx = NULL;
  const char* bad = NULL;
  int status = cabi_affine(&tx, &tw, &tb, &y, &idx);
  if (status != 0) {
    snprintf(problem, sizeof problem, "the good call afterwards failed (%d): %s", status, cabi_last_error());
    return problem;
  }
  if (strcmp(cabi_last_error(), "") != 0) bad = "the good call afterwards left a message";
  else if (y->ndim != 2 || y->shape[0] != B || y->shape[1] != 3 || idx->ndim != 1 || idx->shape[0] != B)
    bad = "the good call afterwards gave results of the wrong shape";
  else if (memcmp(y->data, ref_y, sizeof ref_y) != 0 || memcmp(idx->data, ref_idx, sizeof ref_idx) != 0)
    bad = "the good call afterwards gave different results";
  cabi_release(y);
  cabi_release(idx);
  return bad;
}

/* Ends a rejection case: `problem` (the first thing found wrong), else the message, else the good
 * call afterwards. */
static void finish(const char* what, const char* problem, const char* prefix, const char* want) {
  if (problem == NULL) problem = check_message(prefix, want);
  if (problem == NULL) problem = good_call();
  report(what, problem);
}

/* cabi_affine(x, w, b) must fail with `want_status`, a message containing `want`, results NULL. */
static void affine_fails(const char* what, const DLTensor* tx, const DLTensor* tw, const DLTensor* tb,
                         int want_status, const char* want) {
  DLTensor *y = &sentinel, *idx = &sentinel;
  const char* problem = check_status(cabi_affine(tx, tw, tb, &y, &idx), want_status);
  if (problem == NULL && (y != NULL || idx != NULL)) problem = "a result pointer is not NULL";
  finish(what, problem, "affine: ", want);
}

static void affine_rejects(const char* what, const DLTensor* tx, const DLTensor* tw, const DLTensor* tb,
                           const char* want) {
  affine_fails(what, tx, tw, tb, AGC_STATUS_INVALID_ARGUMENT, want);
}

/* cabi_affine(x, ...) with only x replaced. */
static void x_rejected(const char* what, const DLTensor* tx, const char* want) {
  DLTensor tw = good_w(), tb = good_b();
  affine_rejects(what, tx, &tw, &tb, want);
}

/* cabi_affine(x, w, b) must succeed with the reference results (the first `rows` rows of them). */
static void affine_accepts(const char* what, const DLTensor* tx, const DLTensor* tw, const DLTensor* tb,
                           int64_t rows) {
  static char problem[512];
  DLTensor *y = NULL, *idx = NULL;
  const char* bad = NULL;
  int status = cabi_affine(tx, tw, tb, &y, &idx);
  if (status != 0) {
    snprintf(problem, sizeof problem, "rejected (%d): %s", status, cabi_last_error());
    report(what, problem);
    return;
  }
  if (strcmp(cabi_last_error(), "") != 0) bad = "a message after success";
  else if (y->ndim != 2 || y->shape[0] != rows || y->shape[1] != 3 || idx->ndim != 1 || idx->shape[0] != rows)
    bad = "results of the wrong shape";
  else if (rows > 0 && (memcmp(y->data, ref_y, sizeof(float) * (size_t)(rows * 3)) != 0 ||
                        memcmp(idx->data, ref_idx, sizeof(int64_t) * (size_t)rows) != 0))
    bad = "different results";
  cabi_release(y);
  cabi_release(idx);
  report(what, bad ? bad : good_call());
}

/* Fills the caller-owned result buffers of affine_into with a sentinel, to see whether a failed
 * call wrote them. */
static float into_y[B * 3 + 2];
static int64_t into_idx[B + 1];

static void poison(void) {
  size_t k;
  for (k = 0; k < sizeof into_y / sizeof *into_y; k++) into_y[k] = -777.0f;
  for (k = 0; k < sizeof into_idx / sizeof *into_idx; k++) into_idx[k] = -777;
}

static int untouched(void) {
  size_t k;
  for (k = 0; k < sizeof into_y / sizeof *into_y; k++)
    if (into_y[k] != -777.0f) return 0;
  for (k = 0; k < sizeof into_idx / sizeof *into_idx; k++)
    if (into_idx[k] != -777) return 0;
  return 1;
}

static int64_t yshape[2] = {B, 3}, ishape[1] = {B};

static DLTensor good_out0(void) { return make_tensor(into_y, 2, yshape, 2, 32); }
static DLTensor good_out1(void) { return make_tensor(into_idx, 1, ishape, 0, 64); }

/* cabi_affine_into(x, w, b, out0, out1) must fail with INVALID_ARGUMENT, writing nothing. */
static void into_rejects(const char* what, const DLTensor* tx, DLTensor* out0, DLTensor* out1, const char* want) {
  DLTensor tw = good_w(), tb = good_b();
  const char* problem;
  poison();
  problem = check_status(cabi_affine_into(tx, &tw, &tb, out0, out1), AGC_STATUS_INVALID_ARGUMENT);
  if (problem == NULL && !untouched()) problem = "a result tensor was written";
  finish(what, problem, "affine: ", want);
}

/* cabi_affine_result_shapes(x, w, b, s0, s1) must fail with INVALID_ARGUMENT, writing nothing. */
static void shapes_reject(const char* what, const DLTensor* tx, const DLTensor* tw, int64_t* s0, int64_t* s1,
                          const char* want) {
  DLTensor tb = good_b();
  const char* problem;
  int k;
  for (k = 0; k < 2 && s0; k++) s0[k] = SENTINEL_SHAPE;
  if (s1) s1[0] = SENTINEL_SHAPE;
  problem = check_status(cabi_affine_result_shapes(tx, tw, &tb, s0, s1), AGC_STATUS_INVALID_ARGUMENT);
  if (problem == NULL && ((s0 && (s0[0] != SENTINEL_SHAPE || s0[1] != SENTINEL_SHAPE)) ||
                          (s1 && s1[0] != SENTINEL_SHAPE)))
    problem = "a shape was written";
  finish(what, problem, "affine: ", want);
}

/* cabi_sumsq(v) must fail with INVALID_ARGUMENT, the result NULL. */
static void sumsq_rejects(const char* what, const DLTensor* tv, const char* want) {
  DLTensor* s = &sentinel;
  const char* problem = check_status(cabi_sumsq(tv, &s), AGC_STATUS_INVALID_ARGUMENT);
  if (problem == NULL && s != NULL) problem = "the result pointer is not NULL";
  finish(what, problem, "sumsq: ", want);
}

/* cabi_tree_grad(w, leaves, left, right) with `lv`, `lt`, `rt` must fail with INVALID_ARGUMENT. */
static void tree_rejects(const char* what, const DLTensor* lv, const DLTensor* lt, const DLTensor* rt,
                         const char* want) {
  DLTensor tw = make_tensor(tw3, 2, w3shape, 2, 32);
  DLTensor *dw = &sentinel, *dl = &sentinel;
  const char* problem = check_status(cabi_tree_grad(&tw, lv, lt, rt, &dw, &dl), AGC_STATUS_INVALID_ARGUMENT);
  if (problem == NULL && (dw != NULL || dl != NULL)) problem = "a result pointer is not NULL";
  finish(what, problem, "tree_grad: ", want);
}

/* cabi_chain(x, k) must fail with `want_status`, the result NULL. */
static void chain_fails(const char* what, const DLTensor* tx, const DLTensor* tk, int want_status, const char* want) {
  DLTensor* r = &sentinel;
  const char* problem = check_status(cabi_chain(tx, tk, &r), want_status);
  if (problem == NULL && r != NULL) problem = "the result pointer is not NULL";
  finish(what, problem, "chain: ", want);
}

/* The thread-local last error, seen from a second thread: empty there while the main thread
 * holds a message, then that thread's own message after its own failing call. */
typedef struct {
  char first[256];
  char own[256];
  int status;
} ThreadSeen;

static void* other_thread(void* arg) {
  ThreadSeen* seen = (ThreadSeen*)arg;
  DLTensor* s = &sentinel;
  snprintf(seen->first, sizeof seen->first, "%s", cabi_last_error());
  seen->status = cabi_sumsq(NULL, &s);
  snprintf(seen->own, sizeof seen->own, "%s", cabi_last_error());
  if (s != NULL) seen->status = -1;
  return NULL;
}

/* The process's virtual size in bytes (VmSize), 0 if unknown. */
static unsigned long long vm_size(void) {
  char line[256];
  unsigned long long kib = 0;
  FILE* f = fopen("/proc/self/status", "r");
  if (f == NULL) return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %llu kB", &kib) == 1) break;
  fclose(f);
  return kib * 1024;
}

int main(void) {
  int64_t i;
  int status;

  for (i = 0; i < B * 4; i++) x[i] = x_value(i, 0);
  for (i = 0; i < 12; i++) w[i] = w_value(i);
  for (i = 0; i < 3; i++) b[i] = b_value(i);
  for (i = 0; i < 5; i++) v[i] = v_value(i);
  for (i = 0; i < 9; i++) tw3[i] = w_value(i);
  for (i = 0; i < 9; i++) leaves[i] = x_value(i, 0);

  /* Case 1: before any call the message is "" (never NULL). */
  {
    const char* msg = cabi_last_error();
    report("last_error before any call", msg == NULL ? "NULL" : msg[0] ? "not empty" : NULL);
  }

  /* The reference results. */
  {
    DLTensor tx = good_x(), tw = good_w(), tb = good_b();
    DLTensor *y = NULL, *idx = NULL;
    if ((status = cabi_affine(&tx, &tw, &tb, &y, &idx)) != 0) {
      printf("FAILED reference call (%d): %s\n", status, cabi_last_error());
      return 1;
    }
    memcpy(ref_y, y->data, sizeof ref_y);
    memcpy(ref_idx, idx->data, sizeof ref_idx);
    cabi_release(y);
    cabi_release(idx);
  }

  /* NULL tensors and NULL result pointers. */
  {
    DLTensor tx = good_x(), tw = good_w(), tb = good_b();
    DLTensor *y = &sentinel, *idx = &sentinel;
    affine_rejects("x NULL", NULL, &tw, &tb, "parameter 'x' is NULL");
    affine_rejects("w NULL", &tx, NULL, &tb, "parameter 'w' is NULL");
    affine_rejects("b NULL", &tx, &tw, NULL, "parameter 'b' is NULL");
    affine_rejects("every parameter NULL", NULL, NULL, NULL, "parameter 'x' is NULL");
    status = cabi_affine(&tx, &tw, &tb, NULL, &idx);
    finish("out0 slot NULL", either(check_status(status, 1), idx != NULL ? "out1 not set to NULL" : NULL), "affine: ",
           "'out0' is NULL");
    status = cabi_affine(&tx, &tw, &tb, &y, NULL);
    finish("out1 slot NULL", either(check_status(status, 1), y != NULL ? "out0 not set to NULL" : NULL), "affine: ",
           "'out1' is NULL");
    status = cabi_affine(&tx, &tw, &tb, NULL, NULL);
    finish("both result slots NULL", check_status(status, 1), "affine: ", "is NULL");
    y = &sentinel;
    status = cabi_affine(NULL, &tw, &tb, &y, NULL);
    finish("x NULL and out1 slot NULL", either(check_status(status, 1), y != NULL ? "out0 not set to NULL" : NULL),
           "affine: ", "is NULL");
    sumsq_rejects("sumsq: v NULL", NULL, "parameter 'v' is NULL");
    {
      DLTensor tv = good_v();
      status = cabi_sumsq(&tv, NULL);
      finish("sumsq: result slot NULL", check_status(status, 1), "sumsq: ", "'out0' is NULL");
    }
  }

  /* NULL data and NULL shape arrays. */
  {
    DLTensor tx = good_x(), tw = good_w(), tb = good_b(), tv = good_v();
    tx.data = NULL;
    x_rejected("x data NULL", &tx, "parameter 'x' has NULL data");
    tx = good_x();
    tw.data = NULL;
    affine_rejects("w data NULL", &tx, &tw, &tb, "parameter 'w' has NULL data");
    tw = good_w();
    tb.data = NULL;
    affine_rejects("b data NULL", &tx, &tw, &tb, "parameter 'b' has NULL data");
    tv.data = NULL;
    sumsq_rejects("sumsq: v data NULL", &tv, "parameter 'v' has NULL data");
    tx.shape = NULL;
    x_rejected("x shape NULL with ndim 2", &tx, "NULL shape");
    tb = good_b();
    tb.shape = NULL;
    tx = good_x();
    affine_rejects("b shape NULL with ndim 1", &tx, &tw, &tb, "NULL shape");
  }

  /* Wrong ndim. */
  {
    int64_t three[3] = {B, 4, 1}, wide[65];
    DLTensor tx = good_x();
    for (i = 0; i < 65; i++) wide[i] = 1;
    tx.ndim = 0;
    tx.shape = NULL;
    x_rejected("x ndim 0", &tx, "got () float32");
    tx = good_x();
    tx.ndim = 1;
    x_rejected("x ndim 1", &tx, "got (3,) float32");
    tx.ndim = 3;
    tx.shape = three;
    x_rejected("x ndim 3", &tx, "got (3, 4, 1) float32");
    tx = good_x();
    tx.ndim = -1;
    x_rejected("x ndim -1", &tx, "ndim -1");
    tx.ndim = INT32_MIN;
    x_rejected("x ndim INT32_MIN", &tx, "ndim -2147483648");
    tx.ndim = 0x7fffffff;
    x_rejected("x ndim 0x7fffffff", &tx, "ndim 2147483647");
    tx.ndim = 65;
    tx.shape = wide;
    x_rejected("x ndim 65", &tx, "ndim 65");
  }

  /* Wrong dtype: code, bits, lanes. */
  {
    DLTensor tx = good_x(), tw = good_w(), tb = good_b();
    tx.dtype.code = kDLInt;
    x_rejected("x int32 instead of float32", &tx, "got (3, 4) int32");
    tx = good_x();
    tx.dtype.bits = 64;
    x_rejected("x float64 instead of float32", &tx, "got (3, 4) float64");
    tx.dtype.bits = 16;
    x_rejected("x float16", &tx, "got (3, 4) float16");
    tx.dtype.bits = 0;
    x_rejected("x bits 0", &tx, "bits=0");
    tx = good_x();
    tx.dtype.lanes = 0;
    x_rejected("x lanes 0", &tx, "lanes=0");
    tx.dtype.lanes = 4;
    x_rejected("x lanes 4", &tx, "lanes=4");
    tx = good_x();
    tx.dtype.code = kDLBool;
    tx.dtype.bits = 8;
    x_rejected("x bool", &tx, "got (3, 4) bool");
    tx.dtype.code = 200;
    tx.dtype.bits = 32;
    x_rejected("x dtype code 200", &tx, "code=200");
    tx = good_x();
    tw.dtype.code = kDLUInt;
    affine_rejects("w uint32", &tx, &tw, &tb, "got (4, 3) uint32");
  }

  /* Wrong device (only device_type is read; device_id of a CPU tensor is not). */
  {
    DLTensor tx = good_x(), tw = good_w(), tb = good_b();
    tx.device.device_type = 2; /* kDLCUDA */
    x_rejected("x on kDLCUDA", &tx, "device_type 2");
    tx.device.device_type = 0;
    x_rejected("x device_type 0", &tx, "device_type 0");
    tx.device.device_type = -1;
    x_rejected("x device_type -1", &tx, "device_type -1");
    tx = good_x();
    tb.device.device_type = 3; /* kDLCUDAHost */
    affine_rejects("b on kDLCUDAHost", &tx, &tw, &tb, "parameter 'b' must be a CPU tensor");
    tb = good_b();
    tx.device.device_id = 3;
    affine_accepts("accepted: x on CPU device_id 3", &tx, &tw, &tb, B);
  }

  /* Strides: compact ones are accepted, a size-1 dim may have any stride, anything else is not
   * C-contiguous. */
  {
    int64_t col[2] = {1, B}, neg[2] = {-4, -1}, zero[2] = {0, 0}, padded[2] = {8, 1}, big[2] = {4, 2};
    int64_t compact[2] = {4, 1}, one_row[2] = {99999, 1}, one_shape[2] = {1, 4};
    DLTensor tx = good_x(), tw = good_w(), tb = good_b();
    tx.strides = col;
    x_rejected("x column-major strides", &tx, "C-contiguous");
    tx.strides = neg;
    x_rejected("x negative strides", &tx, "got strides (-4, -1)");
    tx.strides = zero;
    x_rejected("x zero strides", &tx, "got strides (0, 0)");
    tx.strides = padded;
    x_rejected("x padded rows", &tx, "got strides (8, 1)");
    tx.strides = big;
    x_rejected("x inner stride 2", &tx, "got strides (4, 2)");
    tx = good_x();
    tw.strides = col;
    affine_rejects("w transposed strides", &tx, &tw, &tb, "parameter 'w' must be C-contiguous");
    tw = good_w();
    tx.strides = compact;
    affine_accepts("accepted: x compact strides", &tx, &tw, &tb, B);
    tx.shape = one_shape;
    tx.strides = one_row;
    affine_accepts("accepted: x of one row, any stride on that dim", &tx, &tw, &tb, 1);
  }

  /* byte_offset: the first element must be aligned to the element size, and data + byte_offset
   * must stay in the address space. */
  {
    static float shifted[B * 4 + 2];
    DLTensor tx = good_x(), tw = good_w(), tb = good_b();
    tx.byte_offset = 1;
    x_rejected("x byte_offset 1", &tx, "not aligned");
    tx.byte_offset = 6;
    x_rejected("x byte_offset 6", &tx, "not aligned");
    tx = good_x();
    tw.data = (char*)w + 2;
    affine_rejects("w data misaligned", &tx, &tw, &tb, "parameter 'w' is not aligned");
    tw = good_w();
    tx.byte_offset = UINT64_MAX - 3; /* data - 4 */
    x_rejected("x byte_offset -4 (wraps)", &tx, "byte_offset");
    tx.byte_offset = (uint64_t)1 << 63;
    x_rejected("x byte_offset 2^63", &tx, "byte_offset");
    tx.byte_offset = UINT64_MAX;
    x_rejected("x byte_offset 2^64-1", &tx, "byte_offset");
    memcpy(shifted + 2, x, sizeof x);
    tx = make_tensor(shifted, 2, xshape, 2, 32);
    tx.byte_offset = 2 * sizeof(float);
    affine_accepts("accepted: x byte_offset 8", &tx, &tw, &tb, B);
  }

  /* Negative, overflowing and mismatched dims. */
  {
    int64_t neg0[2] = {-1, 4}, neg1[2] = {B, -4}, min0[2] = {INT64_MIN, 4}, five[2] = {B, 5};
    int64_t w44[2] = {4, 4}, w34[2] = {3, 4}, b4[1] = {4};
    int64_t huge_rows[2] = {(int64_t)1 << 62, 4}, huge_bytes[2] = {(int64_t)1 << 60, 4};
    int64_t vmax[1] = {INT64_MAX}, vbytes[1] = {(int64_t)1 << 61};
    DLTensor tx = good_x(), tw = good_w(), tb = good_b(), tv = good_v();
    tx.shape = neg0;
    x_rejected("x dims (-1, 4)", &tx, "got (-1, 4) float32");
    tx.shape = neg1;
    x_rejected("x dims (3, -4)", &tx, "got (3, -4) float32");
    tx.shape = min0;
    x_rejected("x dims (INT64_MIN, 4)", &tx, "got (-9223372036854775808, 4)");
    tx.shape = five;
    x_rejected("x static dim 5 instead of 4", &tx, "expects shape (B, 4) float32, got (3, 5) float32");
    tx = good_x();
    tw.shape = w44;
    affine_rejects("w (4, 4) instead of (4, 3)", &tx, &tw, &tb, "parameter 'w' expects shape (4, 3)");
    tw.shape = w34;
    affine_rejects("w transposed (3, 4)", &tx, &tw, &tb, "got (3, 4) float32");
    tw = good_w();
    tb.shape = b4;
    affine_rejects("b (4,) instead of (3,)", &tx, &tw, &tb, "parameter 'b' expects shape (3,)");
    tx.shape = huge_rows;
    x_rejected("x (2^62, 4): the element count overflows", &tx, "too large");
    tx.shape = huge_bytes;
    x_rejected("x (2^60, 4): the byte count overflows", &tx, "too large");
    tv.shape = vmax;
    sumsq_rejects("sumsq: v of INT64_MAX elements", &tv, "too large");
    tv.shape = vbytes;
    sumsq_rejects("sumsq: v of 2^61 float64", &tv, "too large");
    tv = good_v();
    tv.ndim = 0;
    tv.shape = NULL;
    sumsq_rejects("sumsq: v 0-d", &tv, "expects shape (N,) float64");
    tv = good_v();
    tv.dtype.bits = 32;
    sumsq_rejects("sumsq: v float32", &tv, "got (5,) float32");
  }

  /* A symbolic dim that disagrees between parameters (tree_grad: leaves (N, 3), left (N,),
   * right (N,)). */
  {
    int64_t n4[1] = {4}, n2[1] = {2}, l23[2] = {2, 3};
    int64_t left4[4] = {1, -1, -1, -1};
    DLTensor lv = make_tensor(leaves, 2, lshape, 2, 32);
    DLTensor lt = make_tensor(left, 1, nshape, 0, 64), rt = make_tensor(right, 1, nshape, 0, 64);
    DLTensor lt4 = make_tensor(left4, 1, n4, 0, 64), rt2 = make_tensor(right, 1, n2, 0, 64);
    DLTensor lv2 = make_tensor(leaves, 2, l23, 2, 32);
    tree_rejects("tree_grad: left has N 4, leaves N 3", &lv, &lt4, &rt,
                 "symbolic dim N is 3 in 'leaves' but 4 in 'left'");
    tree_rejects("tree_grad: right has N 2", &lv, &lt, &rt2, "symbolic dim N is 3 in 'leaves' but 2 in 'right'");
    tree_rejects("tree_grad: leaves has N 2", &lv2, &lt, &rt, "symbolic dim N is 2 in 'leaves' but 3 in 'left'");
    lt.dtype.bits = 32;
    tree_rejects("tree_grad: left int32", &lv, &lt, &rt, "parameter 'left' expects shape (N,) int64");
  }

  /* chain's 0-d k: shape and dtype. */
  {
    float cx[4] = {1, 2, 3, 4};
    int64_t k = 2, cshape[1] = {4}, kshape[1] = {1};
    int32_t k32 = 2;
    DLTensor tx = make_tensor(cx, 1, cshape, 2, 32);
    DLTensor tk = make_tensor(&k, 1, kshape, 0, 64);
    chain_fails("chain: k of shape (1,)", &tx, &tk, 1, "parameter 'k' expects shape () int64");
    tk = make_tensor(&k32, 0, NULL, 0, 32);
    chain_fails("chain: k int32", &tx, &tk, 1, "got () int32");
    tk = make_tensor(NULL, 0, NULL, 0, 64);
    chain_fails("chain: k data NULL (a 0-d tensor has one element)", &tx, &tk, 1, "parameter 'k' has NULL data");
  }

  /* _into: bad result tensors, and bad arguments with good result tensors. Nothing is written. */
  {
    int64_t rows[2] = {B + 1, 3}, flat[1] = {B * 3}, neg[2] = {B, -3}, col[2] = {1, B}, i2[1] = {B + 1};
    DLTensor tx = good_x(), o0 = good_out0(), o1 = good_out1();
    into_rejects("into: out0 NULL", &tx, NULL, &o1, "result tensor 'out0' is NULL");
    into_rejects("into: out1 NULL", &tx, &o0, NULL, "result tensor 'out1' is NULL");
    o0.shape = rows;
    into_rejects("into: out0 (4, 3)", &tx, &o0, &o1, "expects shape (3, 3) float32, got (4, 3) float32");
    o0.shape = neg;
    into_rejects("into: out0 (3, -3)", &tx, &o0, &o1, "got (3, -3) float32");
    o0 = good_out0();
    o0.ndim = 1;
    o0.shape = flat;
    into_rejects("into: out0 rank 1", &tx, &o0, &o1, "got (9,) float32");
    o0 = good_out0();
    o0.dtype.bits = 64;
    into_rejects("into: out0 float64", &tx, &o0, &o1, "got (3, 3) float64");
    o0 = good_out0();
    o0.dtype.lanes = 2;
    into_rejects("into: out0 lanes 2", &tx, &o0, &o1, "lanes=2");
    o0 = good_out0();
    o1.dtype.bits = 32;
    into_rejects("into: out1 int32", &tx, &o0, &o1, "result tensor 'out1' expects shape (3,) int64");
    o1 = good_out1();
    o1.shape = i2;
    into_rejects("into: out1 (4,)", &tx, &o0, &o1, "got (4,) int64");
    o1 = good_out1();
    o0.data = NULL;
    into_rejects("into: out0 data NULL", &tx, &o0, &o1, "result tensor 'out0' has NULL data");
    o0 = good_out0();
    o0.strides = col;
    into_rejects("into: out0 column-major", &tx, &o0, &o1, "result tensor 'out0' must be C-contiguous");
    o0 = good_out0();
    o0.device.device_type = 2;
    into_rejects("into: out0 on kDLCUDA", &tx, &o0, &o1, "result tensor 'out0' must be a CPU tensor");
    o0 = good_out0();
    o1.byte_offset = 4;
    into_rejects("into: out1 byte_offset 4 (int64)", &tx, &o0, &o1, "result tensor 'out1' is not aligned");
    o1 = good_out1();
    o0.byte_offset = UINT64_MAX - 3;
    into_rejects("into: out0 byte_offset -4 (wraps)", &tx, &o0, &o1, "byte_offset");
    o0 = good_out0();
    tx.shape = rows;
    into_rejects("into: x (4, 4) with results for B 3", &tx, &o0, &o1, "parameter 'x' expects shape (B, 4)");
    tx = good_x();
    tx.data = NULL;
    into_rejects("into: x data NULL", &tx, &o0, &o1, "parameter 'x' has NULL data");
    {
      DLTensor tv = good_v();
      int64_t one[1] = {1};
      double s = -777.0;
      DLTensor ts = make_tensor(&s, 1, one, 2, 64);
      status = cabi_sumsq_into(&tv, &ts);
      finish("sumsq_into: out0 rank 1", either(check_status(status, 1), s != -777.0 ? "the result was written" : NULL),
             "sumsq: ", "got (1,) float64");
      ts = make_tensor(NULL, 0, NULL, 2, 64);
      status = cabi_sumsq_into(&tv, &ts);
      finish("sumsq_into: 0-d out0 data NULL", check_status(status, 1), "sumsq: ", "'out0' has NULL data");
    }
  }

  /* _result_shapes: bad arguments, NULL shape arrays. What it does not read (data, device,
   * strides) may be anything. */
  {
    int64_t s0[2], s1[1], bad[2] = {B, 7}, col[2] = {1, B};
    DLTensor tx = good_x(), tw = good_w();
    shapes_reject("result_shapes: out0 array NULL", &tx, &tw, NULL, s1,
                  "shape array for result 'out0' (rank 2) is NULL");
    shapes_reject("result_shapes: out1 array NULL", &tx, &tw, s0, NULL,
                  "shape array for result 'out1' (rank 1) is NULL");
    shapes_reject("result_shapes: x NULL", NULL, &tw, s0, s1, "parameter 'x' is NULL");
    tx.shape = bad;
    shapes_reject("result_shapes: x (3, 7)", &tx, &tw, s0, s1, "got (3, 7) float32");
    tx = good_x();
    tx.ndim = 0x7fffffff;
    shapes_reject("result_shapes: x ndim 0x7fffffff", &tx, &tw, s0, s1, "ndim 2147483647");
    tx = good_x();
    tw.dtype.bits = 64;
    shapes_reject("result_shapes: w float64", &tx, &tw, s0, s1, "parameter 'w' expects shape (4, 3) float32");
    tw = good_w();
    tx.shape = NULL;
    shapes_reject("result_shapes: x shape NULL", &tx, &tw, s0, s1, "NULL shape");
    {
      float px[7] = {0};
      int64_t pshape[1] = {7};
      DLTensor tp = make_tensor(px, 1, pshape, 2, 32);
      status = cabi_positives_result_shapes(&tp, NULL, NULL);
      finish("positives_result_shapes: out0 array NULL", check_status(status, 1), "positives: ",
             "shape array for result 'out0' (rank 1) is NULL");
    }
    {
      const char* problem = NULL;
      DLTensor sx = good_x(), sw = good_w(), sb = good_b();
      sx.data = NULL;
      sx.device.device_type = 2;
      sx.strides = col;
      sw.data = NULL;
      sb.device.device_id = 9;
      s0[0] = s0[1] = s1[0] = SENTINEL_SHAPE;
      status = cabi_affine_result_shapes(&sx, &sw, &sb, s0, s1);
      if (status != 0) problem = cabi_last_error();
      else if (s0[0] != B || s0[1] != 3 || s1[0] != B) problem = "wrong shapes";
      else if (strcmp(cabi_last_error(), "") != 0) problem = "a message after success";
      report("accepted: result_shapes ignores data, device and strides", problem ? problem : good_call());
    }
  }

  /* Empty tensors: NULL data and any strides are fine when there are no elements. */
  {
    int64_t zero_rows[2] = {0, 4}, odd[2] = {7, 7};
    DLTensor tx = make_tensor(NULL, 2, zero_rows, 2, 32), tw = good_w(), tb = good_b();
    tx.strides = odd;
    affine_accepts("accepted: x of 0 rows, data NULL, strides (7, 7)", &tx, &tw, &tb, 0);
  }

  /* cabi_release misuse: NULL is a no-op; a tensor the library did not return is detected (a
   * zeroed struct larger than a DLTensor, so that reading the library's header stays inside it). */
  {
    struct {
      DLTensor t;
      uint64_t words[8];
    } foreign;
    cabi_release(NULL);
    report("cabi_release(NULL) is a no-op", good_call());
    memset(&foreign, 0, sizeof foreign);
    foreign.t = good_x();
    cabi_release(&foreign.t);
    finish("cabi_release of a tensor the library did not return", NULL, "release: ", "not a live tensor");
  }

  /* After an error the next good call succeeds and clears the message. */
  {
    DLTensor tw = good_w(), tb = good_b(), tv = good_v();
    DLTensor *y = &sentinel, *idx = &sentinel, *s = NULL;
    const char* problem = NULL;
    double want = 0;
    for (i = 0; i < 5; i++) want += v[i] * v[i];
    if (cabi_affine(NULL, &tw, &tb, &y, &idx) != 1 || cabi_last_error()[0] == '\0') problem = "the bad call";
    else if ((status = cabi_sumsq(&tv, &s)) != 0) problem = "sumsq after an error failed";
    else if (strcmp(cabi_last_error(), "") != 0) problem = "the message survived a good call";
    else if (fabs(*(double*)s->data - want) > 1e-12) problem = "sumsq after an error is wrong";
    cabi_release(s);
    report("a good call of another export after an error clears the message", problem);
    /* ... and so does a _result_shapes call. */
    {
      DLTensor tx = good_x();
      int64_t s0[2], s1[1];
      problem = NULL;
      if (cabi_affine(NULL, &tw, &tb, &y, &idx) != 1) problem = "the bad call";
      else if (cabi_affine_result_shapes(&tx, &tw, &tb, s0, s1) != 0) problem = "result_shapes failed";
      else if (strcmp(cabi_last_error(), "") != 0) problem = "the message survived a good result_shapes call";
      report("a good result_shapes call after an error clears the message", problem);
    }
  }

  /* The last error is per thread. */
  {
    DLTensor tw = good_w(), tb = good_b();
    DLTensor *y = &sentinel, *idx = &sentinel;
    ThreadSeen seen;
    pthread_t th;
    char mine[256];
    const char* problem = NULL;
    memset(&seen, 0, sizeof seen);
    cabi_affine(NULL, &tw, &tb, &y, &idx);
    snprintf(mine, sizeof mine, "%s", cabi_last_error());
    if (pthread_create(&th, NULL, other_thread, &seen) != 0) problem = "pthread_create failed";
    else {
      pthread_join(th, NULL);
      if (strcmp(seen.first, "") != 0) problem = "a new thread sees the main thread's message";
      else if (seen.status != 1 || strstr(seen.own, "sumsq: parameter 'v' is NULL") == NULL)
        problem = "the thread's own failing call did not give its own message";
      else if (mine[0] == '\0' || strcmp(cabi_last_error(), mine) != 0)
        problem = "the main thread's message changed";
    }
    finish("last_error is thread-local", problem, "affine: ", "parameter 'x' is NULL");
  }

  /* set_num_threads below 1 means 1. */
  {
    cabi_set_num_threads(-5);
    report("set_num_threads(-5)", good_call());
    cabi_set_num_threads(0);
    report("set_num_threads(0)", good_call());
    cabi_set_num_threads(2);
  }

  /* Out of memory: chain's recursion 20 levels deep ends in a 4096^3 float32 tensor (256 GiB).
   * The address space is limited to what the process has plus 4 GiB (the soft limit only, put
   * back afterwards), so that overcommit cannot grant it. */
  {
    static float cx[4096];
    int64_t cshape[1] = {4096}, k = 20;
    struct rlimit before, limited;
    unsigned long long now = vm_size();
    int limit_set = 0;
    DLTensor tx = make_tensor(cx, 1, cshape, 2, 32), tk = make_tensor(&k, 0, NULL, 0, 64);
    for (i = 0; i < 4096; i++) cx[i] = 1.0f / (float)(i + 1);
    if (now > 0 && getrlimit(RLIMIT_AS, &before) == 0) {
      limited = before;
      limited.rlim_cur = now + (4ULL << 30);
      if (before.rlim_cur == RLIM_INFINITY || limited.rlim_cur < before.rlim_cur)
        limit_set = setrlimit(RLIMIT_AS, &limited) == 0;
    }
    {
      DLTensor* r = &sentinel;
      const char* problem = check_status(cabi_chain(&tx, &tk, &r), AGC_STATUS_OUT_OF_MEMORY);
      if (problem == NULL && r != NULL) problem = "the result pointer is not NULL";
      if (limit_set) setrlimit(RLIMIT_AS, &before);
      finish("chain: out of memory deep in a recursion", problem, "chain: ", "out of memory");
    }
    /* ... and the same export computes a small call afterwards. */
    {
      DLTensor* r = NULL;
      const char* problem = NULL;
      cshape[0] = 4;
      k = 3;
      if ((status = cabi_chain(&tx, &tk, &r)) != 0) problem = cabi_last_error();
      else if (r->ndim != 0 || !(fabs(*(float*)r->data) <= 1.0f)) problem = "a wrong result";
      cabi_release(r);
      report("chain works after running out of memory", problem ? problem : good_call());
    }
  }

  printf("CASES %d FAILED %d\n", cases, failures);
  return failures ? 1 : 0;
}
