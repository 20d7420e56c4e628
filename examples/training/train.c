/* Training inside an agc library from C.
 *   train fit STEPS VARS   runs STEPS SGD steps on generated batches, saves the variables to VARS
 *   train predict VARS     restores them (in this new process) and predicts
 * Both print the predictions for the same probe points ("PRED ..."), fit also the loss every
 * 100 steps ("LOSS step value"). Batches come from a 32-bit LCG, so any program can make the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

enum { BATCH = 64, FEATURES = 4, CLASSES = 3 };

static unsigned lcg_state = 12345u;
static float uniform(void) { /* in [-1, 1) */
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return (float)(lcg_state >> 8) / 8388608.0f - 1.0f;
}

/* A batch: the class is which of x0, x1, x2 is largest (x3 is noise). */
static void batch(float* x, int32_t* y) {
  for (int i = 0; i < BATCH; i++) {
    int best = 0;
    for (int f = 0; f < FEATURES; f++) x[i * FEATURES + f] = uniform();
    for (int c = 1; c < CLASSES; c++)
      if (x[i * FEATURES + c] > x[i * FEATURES + best]) best = c;
    y[i] = best;
  }
}

static DLTensor tensor(void* data, int ndim, int64_t* shape, uint8_t code, uint8_t bits) {
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

static int check(int status, const char* what) {
  if (status != AGC_STATUS_OK) fprintf(stderr, "%s: %s\n", what, model_last_error());
  return status;
}

static int print_predictions(model_context* ctx) {
  float probe[4 * FEATURES] = {0.9f, 0.1f, -0.5f, 0.0f, -0.3f, 0.8f, 0.2f, 0.5f,
                               0.1f, -0.2f, 0.7f, -0.9f, 0.4f, 0.35f, 0.3f, 0.0f};
  int64_t xs[2] = {4, FEATURES};
  DLTensor x = tensor(probe, 2, xs, kDLFloat, 32);
  float scores[4 * CLASSES];
  int64_t ss[2] = {4, CLASSES};
  DLTensor out = tensor(scores, 2, ss, kDLFloat, 32);
  if (check(model_predict_into(ctx, &x, &out), "predict")) return 1;
  for (int i = 0; i < 4 * CLASSES; i++) printf("PRED %d %.9g\n", i, scores[i]);
  return 0;
}

int main(int argc, char** argv) {
  model_context* ctx = NULL;
  if (argc < 3) {
    fprintf(stderr, "usage: train fit STEPS VARS | train predict VARS\n");
    return 2;
  }
  if (check(model_create(&ctx, NULL), "create")) return 1;
  int rc = 0;
  if (strcmp(argv[1], "fit") == 0 && argc == 4) {
    int steps = atoi(argv[2]);
    float x[BATCH * FEATURES];
    int32_t y[BATCH];
    int64_t xs[2] = {BATCH, FEATURES}, ys[1] = {BATCH}, ls[1] = {0};
    DLTensor xt = tensor(x, 2, xs, kDLFloat, 32), yt = tensor(y, 1, ys, kDLInt, 32);
    float loss;
    DLTensor lt = tensor(&loss, 0, ls, kDLFloat, 32);
    for (int s = 1; s <= steps && rc == 0; s++) {
      batch(x, y);
      rc = check(model_train_step_into(ctx, &xt, &yt, &lt), "train_step");
      if (s % 100 == 0) printf("LOSS %d %.9g\n", s, loss);
    }
    rc = rc || check(model_save(ctx, argv[3]), "save") || print_predictions(ctx);
  } else if (strcmp(argv[1], "predict") == 0) {
    rc = check(model_restore(ctx, argv[2]), "restore") || print_predictions(ctx);
  } else {
    rc = 2;
  }
  model_destroy(ctx);
  return rc;
}
