/* Calls add_bias (y = x + b, x: float32 (B, 3), b: float32 (3,)) of the
 * library whose header is LIB_HEADER, checking numbers, statuses and
 * messages. Usage: abi_test [check | loop N | threads]. Exit 0 on success. */
#include LIB_HEADER
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PREFIX
#define PREFIX demo
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define LAST_ERROR CAT(PREFIX, _last_error)
#define RELEASE CAT(PREFIX, _release)
#define METADATA CAT(PREFIX, _metadata)

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

static DLTensor make(float* data, int ndim, int64_t* shape, uint8_t code, uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

/* One good call with batch `n` and offset `k`; returns 0 when correct. */
static int good_call(int n, float k) {
  float xs[64 * 3], bs[3] = {10, 20, 30};
  int64_t xshape[2] = {n, 3}, bshape[1] = {3};
  for (int i = 0; i < n * 3; i++) xs[i] = (float)i + k;
  DLTensor x = make(xs, 2, xshape, kDLFloat, 32), b = make(bs, 1, bshape, kDLFloat, 32);
  DLTensor* y = NULL;
  int st = demo_add_bias(&x, &b, &y);
  if (st != 0) { fprintf(stderr, "status %d: %s\n", st, LAST_ERROR()); return 1; }
  CHECK(strcmp(LAST_ERROR(), "") == 0);
  CHECK(y && y->ndim == 2 && y->shape[0] == n && y->shape[1] == 3);
  CHECK(y->dtype.code == kDLFloat && y->dtype.bits == 32 && y->dtype.lanes == 1);
  CHECK(y->device.device_type == kDLCPU && y->byte_offset == 0);
  CHECK(y->strides == NULL || (y->strides[0] == 3 && y->strides[1] == 1));
  for (int i = 0; i < n * 3; i++) CHECK(((float*)y->data)[i] == xs[i] + bs[i % 3]);
  RELEASE(y);
  return 0;
}

/* A bad call must fail with `status` and exactly `message`, leaving y NULL. */
static int bad_call(DLTensor* x, DLTensor* b, int status, const char* message) {
  DLTensor* y = (DLTensor*)0x1;
  int st = demo_add_bias(x, b, &y);
  if (st != status || strcmp(LAST_ERROR(), message) != 0 || y != NULL) {
    fprintf(stderr, "expected %d '%s', got %d '%s'\n", status, message, st, LAST_ERROR());
    return 1;
  }
  return 0;
}

static int check(void) {
  float xs[12] = {0}, bs[4] = {0};
  double bd[3] = {0};
  int64_t x43[2] = {4, 3}, x44[2] = {4, 4}, x12[1] = {12}, b3[1] = {3};
  DLTensor x = make(xs, 2, x43, kDLFloat, 32), b = make(bs, 1, b3, kDLFloat, 32);
  DLTensor xbad = make(xs, 2, x44, kDLFloat, 32), x1 = make(xs, 1, x12, kDLFloat, 32);
  DLTensor b64 = make((float*)bd, 1, b3, kDLFloat, 64);
  DLTensor* y = NULL;
  CHECK(good_call(4, 0.5f) == 0);
  CHECK(good_call(1, -2.0f) == 0);
  CHECK(bad_call(&xbad, &b, AGC_STATUS_INVALID_ARGUMENT,
                 "add_bias: parameter 'x' expects shape (B, 3) float32, got (4, 4) float32") == 0);
  CHECK(bad_call(&x1, &b, AGC_STATUS_INVALID_ARGUMENT,
                 "add_bias: parameter 'x' expects shape (B, 3) float32, got (12,) float32") == 0);
  CHECK(bad_call(&x, &b64, AGC_STATUS_INVALID_ARGUMENT,
                 "add_bias: parameter 'b' expects shape (3,) float32, got (3,) float64") == 0);
  CHECK(bad_call(NULL, &b, AGC_STATUS_INVALID_ARGUMENT, "add_bias: parameter 'x' is NULL") == 0);
  CHECK(demo_add_bias(&x, &b, NULL) == AGC_STATUS_INVALID_ARGUMENT);
  CHECK(strcmp(LAST_ERROR(), "add_bias: result pointer 'out0' is NULL") == 0);
  /* Zero-size batch: NULL data is fine. */
  int64_t x03[2] = {0, 3};
  DLTensor x0 = make(NULL, 2, x03, kDLFloat, 32);
  CHECK(demo_add_bias(&x0, &b, &y) == 0 && y->shape[0] == 0);
  RELEASE(y);
  RELEASE(NULL);
  CHECK(strstr(METADATA(), "\"name\":\"add_bias\"") != NULL);
  return 0;
}

static void* worker(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < 200; i++) {
    if (good_call(1 + (int)((id + i) % 60), (float)id) != 0) return (void*)1;
    int64_t bad[2] = {2, 4};
    float xs[8];
    DLTensor x = make(xs, 2, bad, kDLFloat, 32);
    int64_t b3[1] = {3};
    float bs[3];
    DLTensor b = make(bs, 1, b3, kDLFloat, 32);
    DLTensor* y;
    if (demo_add_bias(&x, &b, &y) != AGC_STATUS_INVALID_ARGUMENT || !strstr(LAST_ERROR(), "got (2, 4) float32"))
      return (void*)1;
  }
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "check";
  if (strcmp(mode, "check") == 0) return check();
  if (strcmp(mode, "loop") == 0) {
    int n = argc > 2 ? atoi(argv[2]) : 1000;
    for (int i = 0; i < n; i++) {
      if (good_call(1 + i % 64, (float)i) != 0) return 1;
    }
    return check();
  }
  if (strcmp(mode, "threads") == 0) {
    pthread_t t[8];
    for (long i = 0; i < 8; i++) pthread_create(&t[i], NULL, worker, (void*)i);
    int fails = 0;
    for (int i = 0; i < 8; i++) {
      void* r;
      pthread_join(t[i], &r);
      fails += r != NULL;
    }
    return fails;
  }
  return 2;
}
