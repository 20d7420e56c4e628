/* 8 threads call the library at once; each compares every result bit for bit with the result the
 * main thread computed alone beforehand, and checks that its own failing calls report its own
 * error (last_error is thread-local). Prints each thread's result for the comparison with numpy. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "inputs.h"

#define THREADS 8
#define ITERS 200

typedef struct {
  int t;
  int64_t B;
  float x[THREADS * 4];
  DLTensor* ref_y;
  DLTensor* ref_idx;
  int mismatches;
  int errors;
} Job;

static float w[12], b[3];
static int64_t wshape[2] = {4, 3}, bshape[1] = {3};

static int call(Job* job, DLTensor** y, DLTensor** idx) {
  int64_t xshape[2] = {job->B, 4};
  DLTensor tx = make_tensor(job->x, 2, xshape, 2, 32);
  DLTensor tw = make_tensor(w, 2, wshape, 2, 32), tb = make_tensor(b, 1, bshape, 2, 32);
  return cabi_affine(&tx, &tw, &tb, y, idx);
}

static void* run(void* arg) {
  Job* job = (Job*)arg;
  int i;
  for (i = 0; i < ITERS; i++) {
    DLTensor *y = NULL, *idx = NULL;
    if (call(job, &y, &idx) != 0) { job->errors++; continue; }
    if (memcmp(y->data, job->ref_y->data, sizeof(float) * (size_t)(job->B * 3)) != 0 ||
        memcmp(idx->data, job->ref_idx->data, sizeof(int64_t) * (size_t)job->B) != 0)
      job->mismatches++;
    cabi_release(y);
    cabi_release(idx);
    if (i % 20 == 0) {
      /* a bad dim unique to this thread must show in this thread's message */
      int64_t bad_shape[2] = {job->B, 100 + job->t};
      char want[16];
      DLTensor bad = make_tensor(job->x, 2, bad_shape, 2, 32);
      DLTensor tw = make_tensor(w, 2, wshape, 2, 32), tb = make_tensor(b, 1, bshape, 2, 32);
      snprintf(want, sizeof want, "%d", 100 + job->t);
      if (cabi_affine(&bad, &tw, &tb, &y, &idx) == 0 || strstr(cabi_last_error(), want) == NULL) job->errors++;
    }
  }
  return NULL;
}

int main(void) {
  static Job jobs[THREADS];
  pthread_t th[THREADS];
  int t, k, failed = 0;
  for (k = 0; k < 12; k++) w[k] = w_value(k);
  for (k = 0; k < 3; k++) b[k] = b_value(k);
  for (t = 0; t < THREADS; t++) {
    jobs[t].t = t;
    jobs[t].B = t + 1;
    for (k = 0; k < jobs[t].B * 4; k++) jobs[t].x[k] = x_value(k, t);
    if (call(&jobs[t], &jobs[t].ref_y, &jobs[t].ref_idx) != 0) {
      printf("FAILED reference call: %s\n", cabi_last_error());
      return 1;
    }
  }
  for (t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, run, &jobs[t]);
  for (t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  for (t = 0; t < THREADS; t++) {
    char label[32];
    snprintf(label, sizeof label, "thread%d.y", t);
    print_tensor(label, jobs[t].ref_y);
    snprintf(label, sizeof label, "thread%d.idx", t);
    print_tensor(label, jobs[t].ref_idx);
    printf("THREAD %d mismatches %d errors %d\n", t, jobs[t].mismatches, jobs[t].errors);
    failed |= jobs[t].mismatches || jobs[t].errors;
    cabi_release(jobs[t].ref_y);
    cabi_release(jobs[t].ref_idx);
  }
  printf("DONE\n");
  return failed;
}
