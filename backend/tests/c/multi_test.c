/* multi_stats(x: float64 (N, M), s: float64 (), mask: bool (N, M)) ->
 *   (y = where(mask, x * s, x), r = y.sum(1), n = x.shape[0] as int64 (), x)
 * Several results, a scalar parameter, bool and int64 dtypes, a result that
 * is a parameter, a symbolic-dim mismatch; _into with a result tensor that is an argument. */
#include "multi.h"
#include <stdio.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

int main(void) {
  double xs[6] = {1, 2, 3, 4, 5, 6}, s = 2;
  uint8_t mask[6] = {1, 0, 1, 0, 1, 0};
  int64_t xshape[2] = {2, 3}, mshape[2] = {2, 3}, bad[2] = {3, 2}, one[1] = {1};
  DLTensor x = {xs, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, xshape, NULL, 0};
  DLTensor ts = {&s, {kDLCPU, 0}, 0, {kDLFloat, 64, 1}, NULL, NULL, 0};
  DLTensor m = {mask, {kDLCPU, 0}, 2, {kDLBool, 8, 1}, mshape, NULL, 0};
  DLTensor *y, *r, *n, *xc;
  int st = multi_stats(&x, &ts, &m, &y, &r, &n, &xc);
  if (st) { fprintf(stderr, "%d %s\n", st, multi_last_error()); return 1; }
  double ey[6] = {2, 2, 6, 4, 10, 6}, er[2] = {10, 20};
  CHECK(y->ndim == 2 && y->dtype.code == kDLFloat && y->dtype.bits == 64);
  for (int i = 0; i < 6; i++) CHECK(((double*)y->data)[i] == ey[i]);
  CHECK(r->ndim == 1 && r->shape[0] == 2);
  for (int i = 0; i < 2; i++) CHECK(((double*)r->data)[i] == er[i]);
  CHECK(n->ndim == 0 && n->dtype.code == kDLInt && n->dtype.bits == 64 && *(int64_t*)n->data == 2);
  CHECK(xc->data != (void*)xs && memcmp(xc->data, xs, sizeof xs) == 0);
  multi_release(y);
  multi_release(r);
  multi_release(n);
  multi_release(xc);

  m.shape = bad;
  CHECK(multi_stats(&x, &ts, &m, &y, &r, &n, &xc) == AGC_STATUS_INVALID_ARGUMENT);
  CHECK(strcmp(multi_last_error(), "stats: symbolic dim N is 2 in 'x' but 3 in 'mask'") == 0);
  CHECK(y == NULL && r == NULL && n == NULL && xc == NULL);
  m.shape = mshape;
  ts.ndim = 1;
  ts.shape = one;
  CHECK(multi_stats(&x, &ts, &m, &y, &r, &n, &xc) == AGC_STATUS_INVALID_ARGUMENT);
  CHECK(strcmp(multi_last_error(), "stats: parameter 's' expects shape () float64, got (1,) float64") == 0);
  ts.ndim = 0;
  ts.shape = NULL;

  /* _into with y written over x itself: the result that is x is read before y is written. */
  {
    int64_t ys[2], rs[1];
    CHECK(multi_stats_result_shapes(&x, &ts, &m, ys, rs, NULL, ys) == 0);
    CHECK(ys[0] == 2 && ys[1] == 3 && rs[0] == 2);
    double rv[2], xv[6], orig[6];
    int64_t nv = 0;
    memcpy(orig, xs, sizeof xs);
    DLTensor yo = x;
    DLTensor ro = {rv, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, rs, NULL, 0};
    DLTensor no = {&nv, {kDLCPU, 0}, 0, {kDLInt, 64, 1}, NULL, NULL, 0};
    DLTensor xo = {xv, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, ys, NULL, 0};
    CHECK(multi_stats_into(&x, &ts, &m, &yo, &ro, &no, &xo) == 0);
    for (int i = 0; i < 6; i++) CHECK(xs[i] == ey[i] && xv[i] == orig[i]);
    for (int i = 0; i < 2; i++) CHECK(rv[i] == er[i]);
    CHECK(nv == 2);
    /* A wrong dtype for the int64 result: nothing is written. */
    no.dtype.bits = 32;
    memcpy(xs, orig, sizeof xs);
    CHECK(multi_stats_into(&x, &ts, &m, &yo, &ro, &no, &xo) == AGC_STATUS_INVALID_ARGUMENT);
    CHECK(strcmp(multi_last_error(), "stats: result tensor 'out2' expects shape () int64, got () int32") == 0);
    CHECK(memcmp(xs, orig, sizeof xs) == 0);
  }
  return 0;
}
