/* Calls the library built from examples/mlp.py:
 *
 *   agc build examples/mlp.py -o build/
 *   cc examples/main.c -Ibuild -Lbuild -lmlp -o build/mlp_demo
 *   LD_LIBRARY_PATH=build build/mlp_demo
 *
 * Builds deterministic weights and a batch of 4 "images", calls predict, prints each row's class
 * probabilities and its most likely class, and releases the result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlp.h"

enum { BATCH = 4, PIXELS = 784, HIDDEN = 128, CLASSES = 10 };

/* A reproducible value in [-half * scale, half * scale] (tests/test_example.py mirrors it). */
static float det(int64_t k, int64_t mod, float scale) {
  return (float)(k % mod - mod / 2) * scale;
}

static DLTensor tensor(float* data, int32_t ndim, int64_t* shape) {
  DLTensor t = {0};
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;          /* strides NULL: C-contiguous */
  return t;
}

int main(void) {
  float* x = malloc(sizeof(float) * BATCH * PIXELS);
  float* w1 = malloc(sizeof(float) * PIXELS * HIDDEN);
  float b1[HIDDEN], w2[HIDDEN * CLASSES], b2[CLASSES];
  int64_t i;
  if (!x || !w1) return 1;
  for (i = 0; i < BATCH * PIXELS; i++) x[i] = (float)(i * 31 % 17) / 16.0f;   /* pixels in [0, 1] */
  for (i = 0; i < PIXELS * HIDDEN; i++) w1[i] = det(i * 7919, 2001, 5e-5f);
  for (i = 0; i < HIDDEN; i++) b1[i] = det(i, 7, 0.01f);
  for (i = 0; i < HIDDEN * CLASSES; i++) w2[i] = det(i * 104729, 1009, 2e-3f);
  for (i = 0; i < CLASSES; i++) b2[i] = det(i * 3, 11, 0.02f);

  int64_t x_shape[2] = {BATCH, PIXELS}, w1_shape[2] = {PIXELS, HIDDEN}, b1_shape[1] = {HIDDEN};
  int64_t w2_shape[2] = {HIDDEN, CLASSES}, b2_shape[1] = {CLASSES};
  DLTensor tx = tensor(x, 2, x_shape), tw1 = tensor(w1, 2, w1_shape), tb1 = tensor(b1, 1, b1_shape);
  DLTensor tw2 = tensor(w2, 2, w2_shape), tb2 = tensor(b2, 1, b2_shape);

  DLTensor* probs = NULL;
  int status = mlp_predict(&tx, &tw1, &tb1, &tw2, &tb2, &probs);
  if (status != 0) {
    fprintf(stderr, "predict failed (status %d): %s\n", status, mlp_last_error());
    return 1;
  }

  const float* p = (const float*)probs->data;
  int64_t rows = probs->shape[0], cols = probs->shape[1], r, c;
  printf("predict: %lld x %lld probabilities\n", (long long)rows, (long long)cols);
  for (r = 0; r < rows; r++) {
    int64_t best = 0;
    printf("row %lld:", (long long)r);
    for (c = 0; c < cols; c++) {
      printf(" %.6f", p[r * cols + c]);
      if (p[r * cols + c] > p[r * cols + best]) best = c;
    }
    printf("  argmax %lld\n", (long long)best);
  }
  mlp_release(probs);

  /* A batch whose images have the wrong size is refused with a message, not a crash. */
  x_shape[1] = PIXELS - 1;
  status = mlp_predict(&tx, &tw1, &tb1, &tw2, &tb2, &probs);
  printf("bad call: status %d: %s\n", status, status ? mlp_last_error() : "(accepted?)");

  free(x);
  free(w1);
  return status != 0 ? 0 : 1;
}
