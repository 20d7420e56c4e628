/* Readers and a writer on ONE context of tests/c/state_model.py (docs/c-abi.md: exports that only
 * read state share the context, an export that assigns holds it exclusively).
 *
 *   state_threads READERS STEPS SAVED      readers and writers (below)
 *   state_threads save PATH SAVERS ITERS    SAVERS threads save ONE context to PATH, ITERS times
 *                                           each, while a thread restores PATH into a context of
 *                                           its own: every save and every restore must succeed
 *                                           (save writes a temporary file and renames it, so a
 *                                           reader never sees half a file)
 *
 * Readers and writers: one writer thread calls bump(1.0) STEPS times (each adds 1 to all 4096
 * elements of `level`) while READERS threads call read_level (half of them through
 * read_level_into) until the writers are done. Every read must see all elements equal (a read
 * that saw part of a bump would see two values), and the values one reader sees never decrease.
 * A second writer runs train_step at the same time, and the readers check that step_count never
 * decreases. A saver thread saves the context to SAVED, restores that file into a second context
 * and reads it there: the saved level is whole too, and never decreases.
 * Prints `READER t reads R torn T backwards K errors E last L`, `SAVER ...`, `WRITER ...`,
 * `RESULT final ...`, DONE; `save` mode prints `SAVERS save_errors N restore_errors M`, the last message of each kind
 * (`SAVE_ERROR ...`, `RESTORE_ERROR ...`), DONE. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state_model.h"

#define N 4096
#define MAX_READERS 64
#define BATCH 4

static state_model_context* ctx;
static volatile int writers_left; /* guarded by `lock` */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long steps_wanted;

typedef struct {
  int t;
  long reads, torn, backwards, errors;
  double last;
  int64_t last_steps;
  double buf[N];
} Reader;

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

static int writing(void) {
  int left;
  pthread_mutex_lock(&lock);
  left = writers_left;
  pthread_mutex_unlock(&lock);
  return left > 0;
}

static void writer_done(void) {
  pthread_mutex_lock(&lock);
  writers_left--;
  pthread_mutex_unlock(&lock);
}

static void check(Reader* r, const double* v) {
  int k;
  for (k = 1; k < N; k++)
    if (v[k] != v[0]) {
      r->torn++;
      break;
    }
  if (v[0] < r->last) r->backwards++;
  r->last = v[0];
  r->reads++;
}

static void* reader(void* arg) {
  Reader* r = (Reader*)arg;
  int64_t shape[1] = {N};
  DLTensor into = make_tensor(r->buf, 1, shape, kDLFloat, 64);
  int more = 1;
  while (more) {
    more = writing(); /* one last read after the writers finished */
    if (r->t % 2 == 0) {
      DLTensor* out = NULL;
      if (state_model_read_level(ctx, &out) != 0) {
        r->errors++;
        continue;
      }
      check(r, (const double*)out->data);
      state_model_release(out);
    } else {
      if (state_model_read_level_into(ctx, &into) != 0) {
        r->errors++;
        continue;
      }
      check(r, r->buf);
    }
    {
      DLTensor* out = NULL;
      int64_t steps;
      if (state_model_step_count(ctx, &out) != 0) {
        r->errors++;
        continue;
      }
      steps = *(const int64_t*)out->data;
      if (steps < r->last_steps) r->backwards++;
      r->last_steps = steps;
      state_model_release(out);
    }
  }
  return NULL;
}

/* Saves the context while the writers run; the saved file, restored into a context of its own,
 * holds a whole level. */
static const char* saved_path;
static Reader saver_job;
static char saver_message[512];

static void* saver(void* arg) {
  Reader* r = (Reader*)arg;
  state_model_context* other = NULL;
  int more = 1;
  if (state_model_create(&other, NULL) != 0) {
    r->errors++;
    return NULL;
  }
  while (more) {
    DLTensor* out = NULL;
    more = writing();
    if (state_model_save(ctx, saved_path) != 0 || state_model_restore(other, saved_path) != 0 ||
        state_model_read_level(other, &out) != 0) {
      r->errors++;
      snprintf(saver_message, sizeof saver_message, "%s", state_model_last_error());
      continue;
    }
    check(r, (const double*)out->data);
    state_model_release(out);
  }
  state_model_destroy(other);
  return NULL;
}

static long bump_errors, train_errors;
static double last_sum;

static void* bumper(void* arg) {
  double by = 1.0;
  long s;
  (void)arg;
  for (s = 0; s < steps_wanted; s++) {
    DLTensor tb = make_tensor(&by, 0, NULL, kDLFloat, 64);
    DLTensor* out = NULL;
    if (state_model_bump(ctx, &tb, &out) != 0) {
      bump_errors++;
      continue;
    }
    last_sum = *(const double*)out->data;
    state_model_release(out);
  }
  writer_done();
  return NULL;
}

static void* trainer(void* arg) {
  float x[BATCH * 6];
  int32_t y[BATCH];
  int64_t xshape[2] = {BATCH, 6}, yshape[1] = {BATCH};
  float loss;
  long s;
  int k;
  (void)arg;
  for (k = 0; k < BATCH * 6; k++) x[k] = (float)((k * 7) % 11 - 5) / 4.0f;
  for (k = 0; k < BATCH; k++) y[k] = k % 3;
  for (s = 0; s < steps_wanted; s++) {
    DLTensor tx = make_tensor(x, 2, xshape, kDLFloat, 32), ty = make_tensor(y, 1, yshape, kDLInt, 32);
    DLTensor tl = make_tensor(&loss, 0, NULL, kDLFloat, 32);
    if (state_model_train_step_into(ctx, &tx, &ty, &tl) != 0) train_errors++;
  }
  writer_done();
  return NULL;
}

/* ---------------------------------------------------------------- save mode */

static long save_iters;
static long save_errors, restore_errors; /* guarded by `lock` */
static char save_message[512], restore_message[512];

static void count_error(long* counter, char* into, const char* message) {
  pthread_mutex_lock(&lock);
  (*counter)++;
  snprintf(into, 512, "%s", message);
  pthread_mutex_unlock(&lock);
}

static void* same_path_saver(void* arg) {
  long i;
  (void)arg;
  for (i = 0; i < save_iters; i++)
    if (state_model_save(ctx, saved_path) != 0) count_error(&save_errors, save_message, state_model_last_error());
  writer_done();
  return NULL;
}

static void* same_path_restorer(void* arg) {
  state_model_context* other = NULL;
  (void)arg;
  if (state_model_create(&other, NULL) != 0) {
    count_error(&restore_errors, restore_message, state_model_last_error());
    return NULL;
  }
  while (writing())
    if (state_model_restore(other, saved_path) != 0) count_error(&restore_errors, restore_message, state_model_last_error());
  state_model_destroy(other);
  return NULL;
}

static int save_mode(const char* path, int savers, long iters) {
  pthread_t th[MAX_READERS], restorer;
  int t, status;
  if (savers < 1 || savers > MAX_READERS) return 2;
  saved_path = path;
  save_iters = iters;
  if ((status = state_model_create(&ctx, NULL)) != 0) {
    printf("FAILED create %d: %s\n", status, state_model_last_error());
    return 1;
  }
  if ((status = state_model_save(ctx, path)) != 0) {
    printf("FAILED first save %d: %s\n", status, state_model_last_error());
    return 1;
  }
  writers_left = savers;
  for (t = 0; t < savers; t++) pthread_create(&th[t], NULL, same_path_saver, NULL);
  pthread_create(&restorer, NULL, same_path_restorer, NULL);
  for (t = 0; t < savers; t++) pthread_join(th[t], NULL);
  pthread_join(restorer, NULL);
  state_model_destroy(ctx);
  printf("SAVERS save_errors %ld restore_errors %ld\n", save_errors, restore_errors);
  if (save_errors) printf("SAVE_ERROR %s\n", save_message);
  if (restore_errors) printf("RESTORE_ERROR %s\n", restore_message);
  printf("DONE\n");
  return save_errors || restore_errors;
}

int main(int argc, char** argv) {
  int readers, t, failed = 0, status;
  static Reader jobs[MAX_READERS];
  pthread_t th[MAX_READERS], wb, wt, ws;
  DLTensor* out = NULL;
  int64_t steps = -1;
  if (argc == 5 && strcmp(argv[1], "save") == 0) return save_mode(argv[2], atoi(argv[3]), atol(argv[4]));
  if (argc != 4) {
    fprintf(stderr, "usage: state_threads READERS STEPS SAVED | save PATH SAVERS ITERS\n");
    return 2;
  }
  readers = atoi(argv[1]);
  steps_wanted = atol(argv[2]);
  saved_path = argv[3];
  if (readers < 1 || readers > MAX_READERS) return 2;
  if ((status = state_model_create(&ctx, NULL)) != 0) {
    printf("FAILED create %d: %s\n", status, state_model_last_error());
    return 1;
  }
  writers_left = 2;
  for (t = 0; t < readers; t++) {
    jobs[t].t = t;
    pthread_create(&th[t], NULL, reader, &jobs[t]);
  }
  pthread_create(&ws, NULL, saver, &saver_job);
  pthread_create(&wb, NULL, bumper, NULL);
  pthread_create(&wt, NULL, trainer, NULL);
  pthread_join(wb, NULL);
  pthread_join(wt, NULL);
  for (t = 0; t < readers; t++) pthread_join(th[t], NULL);
  pthread_join(ws, NULL);
  for (t = 0; t < readers; t++) {
    printf("READER %d reads %ld torn %ld backwards %ld errors %ld last %.17g\n", t, jobs[t].reads, jobs[t].torn,
           jobs[t].backwards, jobs[t].errors, jobs[t].last);
    failed |= jobs[t].torn || jobs[t].backwards || jobs[t].errors || jobs[t].reads == 0;
  }
  printf("SAVER saves %ld torn %ld backwards %ld errors %ld last %.17g: %s\n", saver_job.reads, saver_job.torn,
         saver_job.backwards, saver_job.errors, saver_job.last, saver_message);
  failed |= saver_job.torn || saver_job.backwards || saver_job.errors || saver_job.reads == 0;
  printf("WRITER bump errors %ld last_sum %.17g train errors %ld\n", bump_errors, last_sum, train_errors);
  failed |= bump_errors || train_errors;
  if ((status = state_model_read_level(ctx, &out)) != 0) {
    printf("FAILED read_level %d: %s\n", status, state_model_last_error());
    return 1;
  }
  printf("RESULT final float64 1 2 : %.17g %.17g\n", ((const double*)out->data)[0], ((const double*)out->data)[N - 1]);
  state_model_release(out);
  if ((status = state_model_step_count(ctx, &out)) != 0) {
    printf("FAILED step_count %d: %s\n", status, state_model_last_error());
    return 1;
  }
  steps = *(const int64_t*)out->data;
  state_model_release(out);
  printf("RESULT steps int64 0 : %lld\n", (long long)steps);
  state_model_destroy(ctx);
  printf("DONE\n");
  return failed;
}
