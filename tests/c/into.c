/* Calls the cabi library's allocation-free functions from C: NAME_f_result_shapes (symbolic B, a
 * 0-d result, a data-dependent length), NAME_f_into (results equal to NAME_f's, byte_offset, a
 * result tensor sharing memory with an argument, a staged recursion), bad result tensors (each rejected with a
 * message, nothing written), and the heap allocations of steady-state _into calls, counted by
 * this program's own malloc & co. (which forward to glibc's __libc_* functions).
 * Usage: into [B]   (prints SHAPE/RESULT/BAD/ALLOCS lines that the pytest checks) */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "inputs.h"

#include "count_alloc.h"

static int failed(const char* what, int status) {
  printf("FAILED %s status %d: %s\n", what, status, cabi_last_error());
  return 1;
}

static void print_shape(const char* label, int ndim, const int64_t* shape) {
  int d;
  printf("SHAPE %s %d", label, ndim);
  for (d = 0; d < ndim; d++) printf(" %lld", (long long)shape[d]);
  printf("\n");
}

/* Fills n floats with a sentinel, to see whether a failed call wrote anything. */
static void poison(float* p, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++) p[i] = -777.0f;
}

static int untouched(const float* p, int64_t n) {
  int64_t i;
  for (i = 0; i < n; i++)
    if (p[i] != -777.0f) return 0;
  return 1;
}

/* affine_into with out0 replaced by `bad`: must return non-zero with a message and write nothing
 * into either result tensor. Prints BAD <what> <status> <message>. */
static int rejects(const char* what, DLTensor* tx, DLTensor* tw, DLTensor* tb, DLTensor* bad, float* y,
                   int64_t ny, int64_t* idx, int64_t nidx) {
  int64_t ishape[1] = {nidx}, k;
  DLTensor ti = make_tensor(idx, 1, ishape, 0, 64);
  int status;
  poison(y, ny);
  for (k = 0; k < nidx; k++) idx[k] = -777;
  status = cabi_affine_into(tx, tw, tb, bad, &ti);
  printf("BAD %s %d %s\n", what, status, cabi_last_error());
  for (k = 0; k < nidx; k++)
    if (idx[k] != -777) status = 0;
  if (status == 0 || !untouched(y, ny)) {
    printf("FAILED %s: accepted or wrote a result\n", what);
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  int64_t B = argc > 1 ? atoll(argv[1]) : 3, i;
  float* x = (float*)malloc(sizeof(float) * (size_t)(B * 4));
  float* y = (float*)malloc(sizeof(float) * (size_t)(B * 3 + 1));
  int64_t* idx = (int64_t*)malloc(sizeof(int64_t) * (size_t)B);
  float w[12], b[3];
  double v[5], s = 0;
  int64_t xshape[2] = {B, 4}, wshape[2] = {4, 3}, bshape[1] = {3}, vshape[1] = {5};
  int64_t yshape[2] = {0, 0}, ishape[1] = {0}, sshape_unused[1] = {0};
  int status;

  for (i = 0; i < B * 4; i++) x[i] = x_value(i, 0);
  for (i = 0; i < 12; i++) w[i] = w_value(i);
  for (i = 0; i < 3; i++) b[i] = b_value(i);
  for (i = 0; i < 5; i++) v[i] = v_value(i);
  DLTensor tx = make_tensor(x, 2, xshape, 2, 32);
  DLTensor tw = make_tensor(w, 2, wshape, 2, 32);
  DLTensor tb = make_tensor(b, 1, bshape, 2, 32);
  DLTensor tv = make_tensor(v, 1, vshape, 2, 64);

  /* Result shapes from the argument shapes alone: no data needed. */
  {
    DLTensor sx = tx, sw = tw, sb = tb, sv = tv;
    sx.data = sw.data = sb.data = sv.data = NULL;
    if ((status = cabi_affine_result_shapes(&sx, &sw, &sb, yshape, ishape)) != 0)
      return failed("affine_result_shapes", status);
    print_shape("affine.out0", 2, yshape);
    print_shape("affine.out1", 1, ishape);
    sshape_unused[0] = 99;
    if ((status = cabi_sumsq_result_shapes(&sv, NULL)) != 0) return failed("sumsq_result_shapes", status);
    print_shape("sumsq.out0", 0, sshape_unused);
    /* The arguments are checked as a call checks them. */
    int64_t bad_shape[2] = {B, 5};
    DLTensor bad = make_tensor(NULL, 2, bad_shape, 2, 32);
    status = cabi_affine_result_shapes(&bad, &sw, &sb, yshape, ishape);
    printf("BAD result_shapes.x %d %s\n", status, cabi_last_error());
    if (status == 0) return failed("result_shapes accepted a bad x", status);
  }

  /* _into with tensors of those shapes, and the same call through cabi_affine. */
  DLTensor ty = make_tensor(y, 2, yshape, 2, 32);
  DLTensor ti = make_tensor(idx, 1, ishape, 0, 64);
  if ((status = cabi_affine_into(&tx, &tw, &tb, &ty, &ti)) != 0) return failed("affine_into", status);
  print_tensor("into.y", &ty);
  print_tensor("into.idx", &ti);
  {
    DLTensor *py = NULL, *pi = NULL;
    if ((status = cabi_affine(&tx, &tw, &tb, &py, &pi)) != 0) return failed("affine", status);
    print_tensor("plain.y", py);
    print_tensor("plain.idx", pi);
    cabi_release(py);
    cabi_release(pi);
  }
  {
    DLTensor ts = make_tensor(&s, 0, NULL, 2, 64);
    if ((status = cabi_sumsq_into(&tv, &ts)) != 0) return failed("sumsq_into", status);
    print_tensor("into.sumsq", &ts);
  }
  /* A result tensor one float into its buffer (byte_offset). */
  {
    DLTensor to = ty;
    poison(y, B * 3 + 1);
    to.byte_offset = sizeof(float);
    if ((status = cabi_affine_into(&tx, &tw, &tb, &to, &ti)) != 0) return failed("affine_into offset", status);
    print_tensor("offset.y", &to);
    if (y[0] != -777.0f) return failed("affine_into wrote before byte_offset", 0);
  }
  /* The result written over the argument x itself (B*3 of x's B*4 floats). */
  {
    float* xcopy = (float*)malloc(sizeof(float) * (size_t)(B * 4));
    memcpy(xcopy, x, sizeof(float) * (size_t)(B * 4));
    DLTensor tcx = make_tensor(xcopy, 2, xshape, 2, 32);
    DLTensor over = make_tensor(xcopy, 2, yshape, 2, 32);
    if ((status = cabi_affine_into(&tcx, &tw, &tb, &over, &ti)) != 0) return failed("affine_into over x", status);
    print_tensor("alias.y", &over);
    free(xcopy);
  }

  /* Bad result tensors. */
  {
    int64_t wrong_rows[2] = {B + 1, 3}, wrong_rank[1] = {B * 3}, strides[2] = {1, B};
    DLTensor bad = make_tensor(y, 2, wrong_rows, 2, 32);
    if (rejects("shape", &tx, &tw, &tb, &bad, y, B * 3, idx, B)) return 1;
    bad = make_tensor(y, 1, wrong_rank, 2, 32);
    if (rejects("rank", &tx, &tw, &tb, &bad, y, B * 3, idx, B)) return 1;
    bad = make_tensor(y, 2, yshape, 2, 64);
    if (rejects("dtype", &tx, &tw, &tb, &bad, y, B * 3, idx, B)) return 1;
    if (rejects("null", &tx, &tw, &tb, NULL, y, B * 3, idx, B)) return 1;
    bad = make_tensor(y, 2, yshape, 2, 32);
    bad.strides = strides;
    if (B > 1 && rejects("strides", &tx, &tw, &tb, &bad, y, B * 3, idx, B)) return 1;
    bad = make_tensor(y, 2, yshape, 2, 32);
    bad.device.device_type = 2; /* kDLCUDA */
    if (rejects("device", &tx, &tw, &tb, &bad, y, B * 3, idx, B)) return 1;
    bad = make_tensor(NULL, 2, yshape, 2, 32);
    if (rejects("data", &tx, &tw, &tb, &bad, y, B * 3, idx, B)) return 1;
  }

  /* A data-dependent length: -1 from _result_shapes; the length is checked once computed. */
  {
    float px[7] = {1.5f, -2.0f, 0.0f, 3.25f, -0.5f, 4.0f, 2.0f}, kept[8];
    int64_t pshape[1] = {7}, kshape[1] = {0}, nshape_unused[1] = {0}, count = 0;
    DLTensor tp = make_tensor(px, 1, pshape, 2, 32);
    DLTensor *pk = NULL, *pn = NULL;
    if ((status = cabi_positives_result_shapes(&tp, kshape, nshape_unused)) != 0)
      return failed("positives_result_shapes", status);
    print_shape("positives.out0", 1, kshape);
    if ((status = cabi_positives(&tp, &pk, &pn)) != 0) return failed("positives", status);
    kshape[0] = pk->shape[0] + 1; /* one too many */
    DLTensor tk = make_tensor(kept, 1, kshape, 2, 32), tn = make_tensor(&count, 0, NULL, 0, 64);
    poison(kept, 8);
    status = cabi_positives_into(&tp, &tk, &tn);
    printf("BAD positives.length %d %s\n", status, cabi_last_error());
    if (status == 0 || !untouched(kept, 8) || count != 0) return failed("positives_into with a wrong length", 0);
    kshape[0] = pk->shape[0];
    if ((status = cabi_positives_into(&tp, &tk, &tn)) != 0) return failed("positives_into", status);
    print_tensor("positives.into", &tk);
    print_tensor("positives.count", &tn);
    cabi_release(pk);
    cabi_release(pn);
  }

  /* A staged recursion (run on the library's own stack): a root with two leaves. */
  float tw3[9], leaves[9], dw[9], dleaves[9];
  int64_t left[3] = {1, -1, -1}, right[3] = {2, -1, -1}, w3shape[2] = {3, 3}, lshape[2] = {3, 3}, nshape[1] = {3};
  for (i = 0; i < 9; i++) tw3[i] = w_value(i);
  for (i = 0; i < 9; i++) leaves[i] = x_value(i, 0);
  DLTensor tw3t = make_tensor(tw3, 2, w3shape, 2, 32), tl = make_tensor(leaves, 2, lshape, 2, 32);
  DLTensor tleft = make_tensor(left, 1, nshape, 0, 64), tright = make_tensor(right, 1, nshape, 0, 64);
  DLTensor tdw = make_tensor(dw, 2, w3shape, 2, 32), tdl = make_tensor(dleaves, 2, lshape, 2, 32);
  if ((status = cabi_tree_grad_into(&tw3t, &tl, &tleft, &tright, &tdw, &tdl)) != 0)
    return failed("tree_grad_into", status);
  print_tensor("tree.dw", &tdw);
  print_tensor("tree.dleaves", &tdl);

  /* Heap allocations of steady-state calls: a few warm-up calls, then 100 counted ones. */
  {
    DLTensor ts = make_tensor(&s, 0, NULL, 2, 64);
    int k;
    for (k = 0; k < 5; k++) {
      if (cabi_affine_into(&tx, &tw, &tb, &ty, &ti) != 0 || cabi_sumsq_into(&tv, &ts) != 0 ||
          cabi_affine_result_shapes(&tx, &tw, &tb, yshape, ishape) != 0 ||
          cabi_tree_grad_into(&tw3t, &tl, &tleft, &tright, &tdw, &tdl) != 0)
        return failed("warm-up", 1);
    }
    counting = 1;
    allocations = 0;
    for (k = 0; k < 100; k++) status |= cabi_affine_into(&tx, &tw, &tb, &ty, &ti);
    counting = 0;
    if (status) return failed("counted affine_into", status);
    printf("ALLOCS affine_into %ld\n", allocations);
    counting = 1;
    allocations = 0;
    for (k = 0; k < 100; k++) status |= cabi_sumsq_into(&tv, &ts);
    counting = 0;
    if (status) return failed("counted sumsq_into", status);
    printf("ALLOCS sumsq_into %ld\n", allocations);
    counting = 1;
    allocations = 0;
    for (k = 0; k < 100; k++) status |= cabi_affine_result_shapes(&tx, &tw, &tb, yshape, ishape);
    counting = 0;
    if (status) return failed("counted affine_result_shapes", status);
    printf("ALLOCS affine_result_shapes %ld\n", allocations);
    counting = 1;
    allocations = 0;
    for (k = 0; k < 100; k++) status |= cabi_tree_grad_into(&tw3t, &tl, &tleft, &tright, &tdw, &tdl);
    counting = 0;
    if (status) return failed("counted tree_grad_into", status);
    printf("ALLOCS tree_grad_into %ld\n", allocations);
    /* The counter itself works: one malloc is one allocation. */
    counting = 1;
    allocations = 0;
    {
      void* volatile probe = malloc(16);
      free(probe);
    }
    counting = 0;
    printf("ALLOCS probe %ld\n", allocations);
    /* ... and sees the library's: the first call with larger buffers (uncached sizes) mallocs. */
    {
      int64_t big = 4096, bx_shape[2] = {big, 4}, by_shape[2] = {big, 3}, bi_shape[1] = {big};
      float* bx = (float*)calloc((size_t)(big * 4), sizeof(float));
      float* by = (float*)malloc(sizeof(float) * (size_t)(big * 3));
      int64_t* bi = (int64_t*)malloc(sizeof(int64_t) * (size_t)big);
      DLTensor tbx = make_tensor(bx, 2, bx_shape, 2, 32), tby = make_tensor(by, 2, by_shape, 2, 32);
      DLTensor tbi = make_tensor(bi, 1, bi_shape, 0, 64);
      counting = 1;
      allocations = 0;
      status = cabi_affine_into(&tbx, &tw, &tb, &tby, &tbi);
      counting = 0;
      if (status) return failed("cold affine_into", status);
      printf("ALLOCS cold_affine_into %ld\n", allocations);
      free(bx);
      free(by);
      free(bi);
    }
    print_tensor("steady.y", &ty);
  }
  free(x);
  free(y);
  free(idx);
  printf("DONE\n");
  return 0;
}
