/* Batch-1 calls of a 784-1024-256-10 MLP (1.07M parameters) from C: the same model with
 * its weights passed as arguments on every call (`args_predict`) and with the weights in
 * the library (`emb_predict_into`, embedded; `ext_predict_into`, external, with a context).
 * Prints one line per variant: microseconds per call (median of 7 rounds) and heap
 * allocations per call (counted by this program's own malloc & co.).
 * Built and run by bench/weights_call.py. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "args.h"
#include "emb.h"
#include "ext.h"

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void __libc_free(void*);
static volatile long allocations = 0;
void* malloc(size_t n) { allocations++; return __libc_malloc(n); }
void* calloc(size_t n, size_t m) { allocations++; return __libc_calloc(n, m); }
void* realloc(void* p, size_t n) { allocations++; return __libc_realloc(p, n); }
void free(void* p) { __libc_free(p); }
void* aligned_alloc(size_t a, size_t n) { allocations++; return __libc_memalign(a, n); }
int posix_memalign(void** out, size_t a, size_t n) {
  allocations++;
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;
}

static DLTensor tensor(float* data, int ndim, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static float* load(const char* path, size_t n) {
  float* p = malloc(n * sizeof(float));
  FILE* f = fopen(path, "rb");
  if (!f || fread(p, sizeof(float), n, f) != n) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
  fclose(f);
  return p;
}

typedef int (*call_fn)(void*);
static float xs[784], out[10];
static int64_t xshape[2] = {1, 784}, oshape[2] = {1, 10};
static DLTensor X, OUT;
static DLTensor P[6];
static ext_context* ctx;

static int call_args(void* unused) {
  (void)unused;
  DLTensor* r = NULL;
  int st = args_predict(&X, &P[0], &P[1], &P[2], &P[3], &P[4], &P[5], &r);
  args_release(r);
  return st;
}
static int call_emb(void* unused) { (void)unused; return emb_predict_into(&X, &OUT); }
static int call_ext(void* unused) { (void)unused; return ext_predict_into(ctx, &X, &OUT); }

static void measure(const char* name, call_fn f, int n) {
  double rounds[7];
  for (int i = 0; i < 50; i++) if (f(NULL)) { fprintf(stderr, "%s failed\n", name); exit(1); }
  long a0 = allocations;
  for (int r = 0; r < 7; r++) {
    double t = now();
    for (int i = 0; i < n; i++) f(NULL);
    rounds[r] = (now() - t) / n * 1e6;
  }
  double allocs = (double)(allocations - a0) / (7.0 * n);
  qsort(rounds, 7, sizeof(double), cmp);
  printf("%-22s %9.1f us/call %8.2f mallocs/call\n", name, rounds[3], allocs);
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: weights_call DIR ext.weights\n"); return 2; }
  static int64_t shapes[6][2] = {{784, 1024}, {1024, 0}, {1024, 256}, {256, 0}, {256, 10}, {10, 0}};
  const char* names[6] = {"W1", "b1", "W2", "b2", "W3", "b3"};
  char path[4096];
  for (int i = 0; i < 6; i++) {
    size_t n = (size_t)shapes[i][0] * (size_t)(shapes[i][1] ? shapes[i][1] : 1);
    snprintf(path, sizeof path, "%s/%s.bin", argv[1], names[i]);
    P[i] = tensor(load(path, n), shapes[i][1] ? 2 : 1, shapes[i]);
  }
  for (int i = 0; i < 784; i++) xs[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
  X = tensor(xs, 2, xshape);
  OUT = tensor(out, 2, oshape);
  if (ext_create(&ctx, argv[2])) { fprintf(stderr, "%s\n", ext_last_error()); return 1; }
  measure("weights as arguments", call_args, 300);
  measure("embedded, _into", call_emb, 2000);
  measure("external, _into", call_ext, 2000);
  ext_destroy(ctx);
  return 0;
}
