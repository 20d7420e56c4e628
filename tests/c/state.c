/* Contexts from C (docs/c-abi.md, "Contexts: weights and variables"), against tests/c/state_model.py
 * (and, when its header is on the include path, tests/c/state_weights_model.py).
 *
 *   state train N data.bin out.safetensors    N train_step calls on the data's batches in context A
 *                                             (allocating calls) and in context B (_into calls);
 *                                             prints the losses, predictions and step counts of
 *                                             both, then saves A's variables
 *   state restore in.safetensors data.bin     a new context restored from a saved file: predictions
 *                                             before and after, the step count
 *   state errors data.bin wrong.safetensors missing.safetensors unwritable.safetensors
 *                                             bad uses, each a BAD line; each failed call leaves the
 *                                             variables as they were (an UNCHANGED line)
 *   state allocs data.bin                     heap allocations of 100 steady-state _into calls of
 *                                             each export, counted by this program's own malloc
 *   state weights PATH|- [B [saved]]          (state_weights_model) a context on the weights file
 *                                             PATH (- for NULL): results (and its variables saved
 *                                             to `saved`), or the BAD create line
 *   state cross PATH                          each library's context passed to the other's
 *                                             functions: BAD lines
 *
 * data.bin (written by tests/test_c_state.py): int64 N, B, E; float32 x[N][B][6]; int32 y[N][B];
 * float32 eval[E][6].
 * Output: `RESULT label dtype ndim dims... : values...`, `BAD what status message`,
 * `UNCHANGED what 0|1`, `FAILED ...` (then exit 1), `DONE`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state_model.h"
#if defined(__has_include)
#if __has_include("state_weights_model.h")
#include "state_weights_model.h"
#define HAVE_WEIGHTS_MODEL 1
#endif
#endif

#define FEATURES 6
#define CLASSES 3

#include "count_alloc.h"

static DLTensor make_tensor(void* data, int32_t ndim, int64_t* shape, uint8_t code, uint8_t bits) {
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

/* RESULT <label> <dtype> <ndim> <dims...> : <values...> (C-contiguous tensors only) */
static void print_tensor(const char* label, const DLTensor* t) {
  const char* name = "unknown";
  const char* base = (const char*)t->data + t->byte_offset;
  int64_t n = 1, i;
  int d;
  if (t->dtype.code == kDLFloat && t->dtype.bits == 32) name = "float32";
  if (t->dtype.code == kDLFloat && t->dtype.bits == 64) name = "float64";
  if (t->dtype.code == kDLInt && t->dtype.bits == 32) name = "int32";
  if (t->dtype.code == kDLInt && t->dtype.bits == 64) name = "int64";
  printf("RESULT %s %s %d", label, name, (int)t->ndim);
  for (d = 0; d < t->ndim; d++) {
    printf(" %lld", (long long)t->shape[d]);
    n *= t->shape[d];
  }
  printf(" :");
  for (i = 0; i < n; i++) {
    if (t->dtype.code == kDLFloat && t->dtype.bits == 32) printf(" %.9g", (double)((const float*)base)[i]);
    else if (t->dtype.code == kDLFloat && t->dtype.bits == 64) printf(" %.17g", ((const double*)base)[i]);
    else if (t->dtype.code == kDLInt && t->dtype.bits == 32) printf(" %d", (int)((const int32_t*)base)[i]);
    else if (t->dtype.code == kDLInt && t->dtype.bits == 64) printf(" %lld", (long long)((const int64_t*)base)[i]);
  }
  printf("\n");
}

static int failed(const char* what, int status, const char* message) {
  printf("FAILED %s status %d: %s\n", what, status, message);
  return 1;
}

/* ---------------------------------------------------------------- the data file */

typedef struct {
  int64_t n, b, e;
  float* x;    /* [n][b][FEATURES] */
  int32_t* y;  /* [n][b] */
  float* eval; /* [e][FEATURES] */
} Data;

static int read_exact(FILE* f, void* p, size_t bytes) { return fread(p, 1, bytes, f) == bytes; }

static int read_data(const char* path, Data* d) {
  FILE* f = fopen(path, "rb");
  int64_t head[3];
  int ok;
  memset(d, 0, sizeof *d);
  if (f == NULL || !read_exact(f, head, sizeof head)) {
    if (f) fclose(f);
    return 0;
  }
  d->n = head[0];
  d->b = head[1];
  d->e = head[2];
  d->x = (float*)malloc(sizeof(float) * (size_t)(d->n * d->b * FEATURES));
  d->y = (int32_t*)malloc(sizeof(int32_t) * (size_t)(d->n * d->b));
  d->eval = (float*)malloc(sizeof(float) * (size_t)(d->e * FEATURES));
  ok = d->x && d->y && d->eval && read_exact(f, d->x, sizeof(float) * (size_t)(d->n * d->b * FEATURES)) &&
       read_exact(f, d->y, sizeof(int32_t) * (size_t)(d->n * d->b)) &&
       read_exact(f, d->eval, sizeof(float) * (size_t)(d->e * FEATURES));
  fclose(f);
  return ok;
}

static void free_data(Data* d) {
  free(d->x);
  free(d->y);
  free(d->eval);
}

/* ---------------------------------------------------------------- state_model helpers */

static int predict(state_model_context* ctx, const Data* d, DLTensor** out) {
  int64_t shape[2] = {d->e, FEATURES};
  DLTensor tx = make_tensor(d->eval, 2, shape, kDLFloat, 32);
  return state_model_predict(ctx, &tx, out);
}

static int step_count(state_model_context* ctx, int64_t* steps) {
  DLTensor* out = NULL;
  int status = state_model_step_count(ctx, &out);
  if (status == 0) {
    *steps = *(const int64_t*)out->data;
    state_model_release(out);
  }
  return status;
}

/* The context's predictions on the eval set and its step count, to see that a failed call changed
 * nothing: a snapshot, compared bit for bit. */
typedef struct {
  float pred[64 * CLASSES];
  int64_t steps;
} Snapshot;

static int snapshot(state_model_context* ctx, const Data* d, Snapshot* s) {
  DLTensor* out = NULL;
  int status;
  memset(s, 0, sizeof *s);
  if (d->e > 64) return -1;
  if ((status = predict(ctx, d, &out)) != 0) return status;
  memcpy(s->pred, out->data, sizeof(float) * (size_t)(d->e * CLASSES));
  state_model_release(out);
  return step_count(ctx, &s->steps);
}

/* ---------------------------------------------------------------- train */

static int train(int64_t n, const char* data_path, const char* out_path) {
  Data d;
  state_model_context *a = NULL, *b = NULL;
  float* losses;
  float* losses_into;
  float loss_into = 0;
  int64_t loss_shape_unused[1] = {-5}, s, steps = -1, steps_into = -1;
  int status;
  if (!read_data(data_path, &d) || d.n < n) return failed("reading the data file", 0, data_path);
  if ((status = state_model_create(&a, NULL)) != 0 || a == NULL)
    return failed("create A", status, state_model_last_error());
  if ((status = state_model_create(&b, NULL)) != 0 || b == NULL)
    return failed("create B", status, state_model_last_error());
  losses = (float*)malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  losses_into = (float*)malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));

  {
    int64_t xshape[2] = {d.b, FEATURES}, yshape[1] = {d.b};
    DLTensor tx = make_tensor(NULL, 2, xshape, kDLFloat, 32), ty = make_tensor(NULL, 1, yshape, kDLInt, 32);
    /* _result_shapes takes no context: the loss is a scalar. */
    if ((status = state_model_train_step_result_shapes(&tx, &ty, loss_shape_unused)) != 0)
      return failed("train_step_result_shapes", status, state_model_last_error());
  }
  for (s = 0; s < n; s++) {
    int64_t xshape[2] = {d.b, FEATURES}, yshape[1] = {d.b};
    DLTensor tx = make_tensor(d.x + s * d.b * FEATURES, 2, xshape, kDLFloat, 32);
    DLTensor ty = make_tensor(d.y + s * d.b, 1, yshape, kDLInt, 32);
    DLTensor tl = make_tensor(&loss_into, 0, NULL, kDLFloat, 32);
    DLTensor* loss = NULL;
    if ((status = state_model_train_step(a, &tx, &ty, &loss)) != 0)
      return failed("train_step", status, state_model_last_error());
    losses[s] = *(const float*)loss->data;
    state_model_release(loss);
    if ((status = state_model_train_step_into(b, &tx, &ty, &tl)) != 0)
      return failed("train_step_into", status, state_model_last_error());
    losses_into[s] = loss_into;
  }
  {
    int64_t lshape[1] = {n};
    DLTensor tl = make_tensor(losses, 1, lshape, kDLFloat, 32), tli = make_tensor(losses_into, 1, lshape, kDLFloat, 32);
    print_tensor("losses", &tl);
    print_tensor("losses_into", &tli);
  }
  {
    int64_t xshape[2] = {d.e, FEATURES}, pshape[2] = {-1, -1};
    DLTensor tx = make_tensor(d.eval, 2, xshape, kDLFloat, 32);
    DLTensor* pred = NULL;
    float* buf;
    if ((status = state_model_predict(a, &tx, &pred)) != 0) return failed("predict", status, state_model_last_error());
    print_tensor("pred", pred);
    state_model_release(pred);
    if ((status = state_model_predict_result_shapes(&tx, pshape)) != 0)
      return failed("predict_result_shapes", status, state_model_last_error());
    buf = (float*)malloc(sizeof(float) * (size_t)(pshape[0] * pshape[1]));
    {
      DLTensor tp = make_tensor(buf, 2, pshape, kDLFloat, 32);
      if ((status = state_model_predict_into(a, &tx, &tp)) != 0)
        return failed("predict_into A", status, state_model_last_error());
      print_tensor("pred_into", &tp);
      if ((status = state_model_predict_into(b, &tx, &tp)) != 0)
        return failed("predict_into B", status, state_model_last_error());
      print_tensor("pred_b", &tp);
    }
    free(buf);
  }
  if ((status = step_count(a, &steps)) != 0) return failed("step_count", status, state_model_last_error());
  {
    DLTensor ts = make_tensor(&steps_into, 0, NULL, kDLInt, 64);
    if ((status = state_model_step_count_into(b, &ts)) != 0)
      return failed("step_count_into", status, state_model_last_error());
  }
  printf("RESULT steps int64 0 : %lld\n", (long long)steps);
  printf("RESULT steps_into int64 0 : %lld\n", (long long)steps_into);
  if ((status = state_model_save(a, out_path)) != 0) return failed("save", status, state_model_last_error());
  if (strcmp(state_model_last_error(), "") != 0) return failed("last_error after a successful save", 0, state_model_last_error());
  state_model_destroy(a);
  state_model_destroy(b);
  free(losses);
  free(losses_into);
  free_data(&d);
  printf("DONE\n");
  return 0;
}

/* ---------------------------------------------------------------- restore */

static int restore(const char* in_path, const char* data_path) {
  Data d;
  state_model_context* ctx = NULL;
  DLTensor* pred = NULL;
  int64_t steps = -1;
  int status;
  if (!read_data(data_path, &d)) return failed("reading the data file", 0, data_path);
  if ((status = state_model_create(&ctx, NULL)) != 0) return failed("create", status, state_model_last_error());
  if ((status = predict(ctx, &d, &pred)) != 0) return failed("predict", status, state_model_last_error());
  print_tensor("pred_initial", pred);
  state_model_release(pred);
  if ((status = state_model_restore(ctx, in_path)) != 0) return failed("restore", status, state_model_last_error());
  if ((status = predict(ctx, &d, &pred)) != 0) return failed("predict", status, state_model_last_error());
  print_tensor("pred", pred);
  state_model_release(pred);
  if ((status = step_count(ctx, &steps)) != 0) return failed("step_count", status, state_model_last_error());
  printf("RESULT steps int64 0 : %lld\n", (long long)steps);
  state_model_destroy(ctx);
  free_data(&d);
  printf("DONE\n");
  return 0;
}

/* ---------------------------------------------------------------- errors */

static void bad(const char* what, int status) {
  /* the message on one line */
  char message[1024];
  char* p;
  snprintf(message, sizeof message, "%s", state_model_last_error());
  for (p = message; *p; p++)
    if (*p == '\n') *p = ' ';
  printf("BAD %s %d %s\n", what, status, message);
}

static void unchanged(const char* what, state_model_context* ctx, const Data* d, const Snapshot* before) {
  Snapshot now;
  int same = snapshot(ctx, d, &now) == 0 && memcmp(now.pred, before->pred, sizeof now.pred) == 0 &&
             now.steps == before->steps;
  printf("UNCHANGED %s %d\n", what, same);
}

static int errors(const char* data_path, const char* wrong, const char* missing, const char* unwritable) {
  Data d;
  state_model_context* ctx = NULL;
  Snapshot before;
  int64_t xshape[2], yshape[1], s;
  DLTensor tx, ty;
  int status;
  if (!read_data(data_path, &d) || d.n < 3) return failed("reading the data file", 0, data_path);
  xshape[0] = d.b;
  xshape[1] = FEATURES;
  yshape[0] = d.b;
  tx = make_tensor(d.x, 2, xshape, kDLFloat, 32);
  ty = make_tensor(d.y, 1, yshape, kDLInt, 32);

  /* create with nowhere to put the context */
  bad("create_null", state_model_create(NULL, NULL));
  state_model_destroy(NULL); /* ignored */

  if ((status = state_model_create(&ctx, NULL)) != 0) return failed("create", status, state_model_last_error());
  for (s = 0; s < 3; s++) {
    DLTensor* loss = NULL;
    DLTensor sx = make_tensor(d.x + s * d.b * FEATURES, 2, xshape, kDLFloat, 32);
    DLTensor sy = make_tensor(d.y + s * d.b, 1, yshape, kDLInt, 32);
    if ((status = state_model_train_step(ctx, &sx, &sy, &loss)) != 0)
      return failed("train_step", status, state_model_last_error());
    state_model_release(loss);
  }
  if ((status = snapshot(ctx, &d, &before)) != 0) return failed("snapshot", status, state_model_last_error());

  /* a NULL context: an error status, results NULL */
  {
    DLTensor* out = (DLTensor*)&before; /* not NULL: the call must set it to NULL */
    float loss = -777.0f;
    DLTensor tl = make_tensor(&loss, 0, NULL, kDLFloat, 32);
    status = state_model_train_step(NULL, &tx, &ty, &out);
    bad("train_step_null_ctx", status);
    if (out != NULL) return failed("train_step with a NULL context left *out0 non-NULL", status, "");
    out = (DLTensor*)&before;
    status = predict(NULL, &d, &out);
    bad("predict_null_ctx", status);
    if (out != NULL) return failed("predict with a NULL context left *out0 non-NULL", status, "");
    status = state_model_train_step_into(NULL, &tx, &ty, &tl);
    bad("train_step_into_null_ctx", status);
    if (loss != -777.0f) return failed("train_step_into with a NULL context wrote its result", status, "");
    bad("save_null_ctx", state_model_save(NULL, unwritable));
    bad("restore_null_ctx", state_model_restore(NULL, missing));
  }
  unchanged("null_ctx", ctx, &d, &before);

  /* restore: a missing file, a file with a wrong shape */
  bad("restore_missing", state_model_restore(ctx, missing));
  unchanged("restore_missing", ctx, &d, &before);
  bad("restore_shape", state_model_restore(ctx, wrong));
  unchanged("restore_shape", ctx, &d, &before);

  /* save where no file can be written; NULL paths */
  bad("save_unwritable", state_model_save(ctx, unwritable));
  unchanged("save_unwritable", ctx, &d, &before);
  bad("save_null_path", state_model_save(ctx, NULL));
  bad("restore_null_path", state_model_restore(ctx, NULL));
  unchanged("null_path", ctx, &d, &before);

  /* assigning calls that fail change no variable */
  {
    DLTensor* loss = NULL;
    int64_t wrong_x[2] = {d.b, FEATURES + 1};
    DLTensor bx = make_tensor(d.x, 2, wrong_x, kDLFloat, 32);
    int32_t* labels = (int32_t*)malloc(sizeof(int32_t) * (size_t)d.b);
    float scalar = 0;
    int64_t wrong_rank[1] = {1};
    DLTensor tl = make_tensor(&scalar, 1, wrong_rank, kDLFloat, 32);
    DLTensor by;
    status = state_model_train_step(ctx, &bx, &ty, &loss);
    bad("train_step_shape", status);
    unchanged("train_step_shape", ctx, &d, &before);
    /* a label out of range: np.eye(3)[y] raises IndexError in numpy, here a run-time failure
     * inside an assigning call */
    memcpy(labels, d.y, sizeof(int32_t) * (size_t)d.b);
    labels[d.b - 1] = CLASSES + 2;
    by = make_tensor(labels, 1, yshape, kDLInt, 32);
    loss = NULL;
    status = state_model_train_step(ctx, &tx, &by, &loss);
    bad("train_step_label", status);
    if (status == 0) state_model_release(loss);
    unchanged("train_step_label", ctx, &d, &before);
    tl.ndim = 0;
    status = state_model_train_step_into(ctx, &tx, &by, &tl);
    bad("train_step_into_label", status);
    unchanged("train_step_into_label", ctx, &d, &before);
    tl.ndim = 1;
    status = state_model_train_step_into(ctx, &tx, &ty, &tl);
    bad("train_step_into_result", status);
    unchanged("train_step_into_result", ctx, &d, &before);
    free(labels);
  }

  /* the context still works */
  {
    DLTensor* loss = NULL;
    Snapshot after;
    if ((status = state_model_train_step(ctx, &tx, &ty, &loss)) != 0)
      return failed("train_step after the errors", status, state_model_last_error());
    state_model_release(loss);
    if ((status = snapshot(ctx, &d, &after)) != 0) return failed("snapshot", status, state_model_last_error());
    printf("RESULT steps_after int64 0 : %lld\n", (long long)after.steps);
  }
  state_model_destroy(ctx);
  free_data(&d);
  printf("DONE\n");
  return 0;
}

/* ---------------------------------------------------------------- allocations */

/* CONTRACT section 6: in the steady state (same shapes, same thread, after a few calls) a call of
 * NAME_f_into makes no heap allocation; with a context too, for readers and assigning exports. */
static int allocs(const char* data_path) {
  Data d;
  state_model_context* ctx = NULL;
  int64_t xshape[2], yshape[1], pshape[2], lshape[1] = {4096};
  float loss = 0, *pred;
  double* level = (double*)malloc(sizeof(double) * 4096);
  double by = 1.0, sum = 0;
  int64_t steps = 0;
  DLTensor tx, ty, tl, tp, tv, tb, ts, tc;
  int status = 0, k, f;
  const char* names[5] = {"train_step_into", "bump_into", "predict_into", "step_count_into", "read_level_into"};
  if (!read_data(data_path, &d)) return failed("reading the data file", 0, data_path);
  xshape[0] = d.b;
  xshape[1] = FEATURES;
  yshape[0] = d.b;
  pshape[0] = d.b;
  pshape[1] = CLASSES;
  pred = (float*)malloc(sizeof(float) * (size_t)(d.b * CLASSES));
  tx = make_tensor(d.x, 2, xshape, kDLFloat, 32);
  ty = make_tensor(d.y, 1, yshape, kDLInt, 32);
  tl = make_tensor(&loss, 0, NULL, kDLFloat, 32);
  tp = make_tensor(pred, 2, pshape, kDLFloat, 32);
  tv = make_tensor(level, 1, lshape, kDLFloat, 64);
  tb = make_tensor(&by, 0, NULL, kDLFloat, 64);
  ts = make_tensor(&sum, 0, NULL, kDLFloat, 64);
  tc = make_tensor(&steps, 0, NULL, kDLInt, 64);
  if ((status = state_model_create(&ctx, NULL)) != 0) return failed("create", status, state_model_last_error());
  for (f = 0; f < 5; f++) {
    for (k = 0; k < 105; k++) {
      if (k == 5) { /* 5 warm-up calls, then 100 counted ones */
        allocations = 0;
        counting = 1;
      }
      switch (f) {
        case 0: status |= state_model_train_step_into(ctx, &tx, &ty, &tl); break;
        case 1: status |= state_model_bump_into(ctx, &tb, &ts); break;
        case 2: status |= state_model_predict_into(ctx, &tx, &tp); break;
        case 3: status |= state_model_step_count_into(ctx, &tc); break;
        default: status |= state_model_read_level_into(ctx, &tv); break;
      }
    }
    counting = 0;
    if (status) return failed(names[f], status, state_model_last_error());
    printf("ALLOCS %s %ld\n", names[f], allocations);
  }
  printf("RESULT steps int64 0 : %lld\n", (long long)steps);
  printf("RESULT level0 float64 0 : %.17g\n", level[0]);
  /* the counter counts */
  counting = 1;
  allocations = 0;
  {
    void* volatile probe = malloc(16);
    free(probe);
  }
  counting = 0;
  printf("ALLOCS probe %ld\n", allocations);
  state_model_destroy(ctx);
  free(pred);
  free(level);
  free_data(&d);
  printf("DONE\n");
  return 0;
}

/* ---------------------------------------------------------------- external weights */

#ifdef HAVE_WEIGHTS_MODEL
static float wx_value(int64_t i) { return (float)((i * 7) % 11 - 5) / 4.0f; }

static int weights(const char* path, int64_t B, const char* save_path) {
  state_weights_model_context* ctx = (state_weights_model_context*)&B; /* create must overwrite it */
  float* x = (float*)malloc(sizeof(float) * (size_t)(B * 5));
  int64_t xshape[2] = {B, 5}, ishape[1] = {4}, sshape[1] = {4}, i;
  int64_t idx[4] = {0, 2, 5, 2};
  float by[4] = {0.5f, -1.0f, 0.25f, 2.0f};
  DLTensor *y = NULL, *p = NULL, *o = NULL;
  DLTensor tx, ti, ts;
  int status = state_weights_model_create(&ctx, path);
  if (status != 0) {
    char message[1024];
    char* c;
    snprintf(message, sizeof message, "%s", state_weights_model_last_error());
    for (c = message; *c; c++)
      if (*c == '\n') *c = ' ';
    printf("BAD create %d %s\n", status, message);
    printf("CTX %s\n", ctx == NULL ? "null" : "set");
    free(x);
    printf("DONE\n");
    return 0;
  }
  for (i = 0; i < B * 5; i++) x[i] = wx_value(i);
  tx = make_tensor(x, 2, xshape, kDLFloat, 32);
  ti = make_tensor(idx, 1, ishape, kDLInt, 64);
  ts = make_tensor(by, 1, sshape, kDLFloat, 32);
  if ((status = state_weights_model_apply(ctx, &tx, &y)) != 0)
    return failed("apply", status, state_weights_model_last_error());
  print_tensor("apply", y);
  state_weights_model_release(y);
  if ((status = state_weights_model_pick(ctx, &ti, &p)) != 0)
    return failed("pick", status, state_weights_model_last_error());
  print_tensor("pick", p);
  state_weights_model_release(p);
  if ((status = state_weights_model_shift(ctx, &ts, &o)) != 0)
    return failed("shift", status, state_weights_model_last_error());
  print_tensor("offset", o);
  state_weights_model_release(o);
  if ((status = state_weights_model_apply(ctx, &tx, &y)) != 0)
    return failed("apply after shift", status, state_weights_model_last_error());
  print_tensor("apply_shifted", y);
  state_weights_model_release(y);
  /* the variables, not the weights */
  if (save_path != NULL && (status = state_weights_model_save(ctx, save_path)) != 0)
    return failed("save", status, state_weights_model_last_error());
  state_weights_model_destroy(ctx);
  free(x);
  printf("DONE\n");
  return 0;
}

/* Each library's context passed to the other library's functions: "not a live context of this
 * library", an error status (both libraries come from one agc, so their contexts look alike). */
static int cross(const char* path) {
  state_weights_model_context* w = NULL;
  state_model_context* m = NULL;
  float x[2 * FEATURES] = {0}, by[4] = {1, 1, 1, 1}, y[2 * CLASSES];
  int64_t xshape[2] = {2, FEATURES}, bshape[1] = {4}, yshape[2] = {2, CLASSES};
  DLTensor tx = make_tensor(x, 2, xshape, kDLFloat, 32), tb = make_tensor(by, 1, bshape, kDLFloat, 32);
  DLTensor ty = make_tensor(y, 2, yshape, kDLFloat, 32);
  DLTensor* out = NULL;
  int status;
  if ((status = state_weights_model_create(&w, path)) != 0)
    return failed("create state_weights_model", status, state_weights_model_last_error());
  if ((status = state_model_create(&m, NULL)) != 0) return failed("create state_model", status, state_model_last_error());
  printf("CROSS predict\n");
  fflush(stdout); /* a crash shows which call */
  bad("predict_other_ctx", state_model_predict((state_model_context*)w, &tx, &out));
  printf("CROSS predict_into\n");
  fflush(stdout);
  bad("predict_into_other_ctx", state_model_predict_into((state_model_context*)w, &tx, &ty));
  printf("CROSS save\n");
  fflush(stdout);
  bad("save_other_ctx", state_model_save((state_model_context*)w, "/nonexistent/dir/cross.safetensors"));
  printf("CROSS shift\n");
  fflush(stdout);
  {
    char message[1024];
    char* c;
    status = state_weights_model_shift((state_weights_model_context*)m, &tb, &out);
    snprintf(message, sizeof message, "%s", state_weights_model_last_error());
    for (c = message; *c; c++)
      if (*c == '\n') *c = ' ';
    printf("BAD shift_other_ctx %d %s\n", status, message);
  }
  state_model_destroy(m);
  state_weights_model_destroy(w);
  printf("DONE\n");
  return 0;
}
#endif

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "train") == 0 && argc == 5) return train(atoll(argv[2]), argv[3], argv[4]);
  if (strcmp(mode, "restore") == 0 && argc == 4) return restore(argv[2], argv[3]);
  if (strcmp(mode, "errors") == 0 && argc == 6) return errors(argv[2], argv[3], argv[4], argv[5]);
  if (strcmp(mode, "allocs") == 0 && argc == 3) return allocs(argv[2]);
#ifdef HAVE_WEIGHTS_MODEL
  if (strcmp(mode, "weights") == 0 && argc >= 3 && argc <= 5)
    return weights(strcmp(argv[2], "-") == 0 ? NULL : argv[2], argc >= 4 ? atoll(argv[3]) : 3,
                   argc == 5 ? argv[4] : NULL);
  if (strcmp(mode, "cross") == 0 && argc == 3) return cross(argv[2]);
#endif
  fprintf(stderr, "usage: state train N data.bin out.safetensors | restore in.safetensors data.bin | "
                  "errors data.bin wrong.safetensors missing.safetensors unwritable.safetensors | allocs data.bin"
#ifdef HAVE_WEIGHTS_MODEL
                  " | weights PATH|- [B [saved]] | cross PATH"
#endif
                  "\n");
  return 2;
}
