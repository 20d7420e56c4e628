/* Many calls (good and failing) for valgrind: every result released, nothing may leak.
 * Usage: leak [CALLS]; exits 0 when every status was as expected. */
#include <stdlib.h>
#include <string.h>
#include "inputs.h"

int main(int argc, char** argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 1000, i, bad_status = 0;
  static float px[512 * 64], pw[64 * 128];
  float x[5 * 4], w[12], b[3];
  double v[7];
  int64_t wshape[2] = {4, 3}, bshape[1] = {3}, k;
  for (k = 0; k < 20; k++) x[k] = x_value(k, 0);
  for (k = 0; k < 12; k++) w[k] = w_value(k);
  for (k = 0; k < 3; k++) b[k] = b_value(k);
  for (k = 0; k < 7; k++) v[k] = v_value(k);
  DLTensor tw = make_tensor(w, 2, wshape, 2, 32), tb = make_tensor(b, 1, bshape, 2, 32);
  if (strstr(cabi_metadata(), "affine") == NULL) return 2;
  for (k = 0; k < 512 * 64; k++) px[k] = x_value(k, 1);
  for (k = 0; k < 64 * 128; k++) pw[k] = x_value(k, 2);
  cabi_set_num_threads(2);  /* the threaded matmul too */

  for (i = 0; i < calls; i++) {
    int64_t xshape[2] = {1 + i % 5, 4}, vshape[1] = {i % 8};
    DLTensor tx = make_tensor(x, 2, xshape, 2, 32), tv = make_tensor(v, 1, vshape, 2, 64);
    DLTensor *y = NULL, *idx = NULL, *s = NULL;
    if (cabi_affine(&tx, &tw, &tb, &y, &idx) != 0) { printf("affine failed: %s\n", cabi_last_error()); return 1; }
    cabi_release(y);
    cabi_release(idx);
    if (vshape[0] > 0 || i % 16 == 0) {  /* includes N = 0 */
      if (cabi_sumsq(&tv, &s) != 0) { printf("sumsq failed: %s\n", cabi_last_error()); return 1; }
      cabi_release(s);
    }
    {  /* a chain tree of 1 to 3 leaves: inner node 2k, its leaf 2k+1, the last leaf 2n-2 */
      int64_t n = 1 + i % 3, nodes = 2 * n - 1, left[5], right[5], lshape[2] = {nodes, 3}, ishape[1] = {nodes};
      int64_t wshape3[2] = {3, 3};
      for (k = 0; k < nodes; k++) left[k] = right[k] = -1;
      for (k = 0; k + 1 < n; k++) { left[2 * k] = k + 2 < n ? 2 * k + 2 : nodes - 1; right[2 * k] = 2 * k + 1; }
      DLTensor tw3 = make_tensor(w, 2, wshape3, 2, 32), tl = make_tensor(x, 2, lshape, 2, 32);
      DLTensor tleft = make_tensor(left, 1, ishape, 0, 64), tright = make_tensor(right, 1, ishape, 0, 64);
      DLTensor *dw = NULL, *dl = NULL;
      if (cabi_tree_grad(&tw3, &tl, &tleft, &tright, &dw, &dl) != 0) { printf("tree_grad failed: %s\n", cabi_last_error()); return 1; }
      cabi_release(dw);
      cabi_release(dl);
    }
    if (i % 100 == 0) {  /* a matmul split over the pool's threads */
      int64_t pxshape[2] = {512, 64}, pwshape[2] = {64, 128};
      DLTensor tpx = make_tensor(px, 2, pxshape, 2, 32), tpw = make_tensor(pw, 2, pwshape, 2, 32);
      if (cabi_project(&tpx, &tpw, &y) != 0) { printf("project failed: %s\n", cabi_last_error()); return 1; }
      cabi_release(y);
    }
    if (i % 100 == 50) {  /* out of memory at the bottom of a 20-deep recursion: status 2, nothing leaks */
      int64_t xshape[1] = {4096}, kshape[1] = {0}, depth = 20;
      DLTensor tx4 = make_tensor(px, 1, xshape, 2, 32), tk = make_tensor(&depth, 0, kshape, 0, 64);
      DLTensor* r = NULL;
      if (cabi_chain(&tx4, &tk, &r) != 2 || r != NULL || strstr(cabi_last_error(), "out of memory") == NULL) {
        printf("chain did not run out of memory: %s\n", cabi_last_error());
        return 1;
      }
    }
    if (i % 10 == 0) {
      int64_t bad_shape[2] = {2, 3};
      DLTensor bad = make_tensor(x, 2, bad_shape, 2, 32);
      if (cabi_affine(&bad, &tw, &tb, &y, &idx) == 0) { bad_status = 1; cabi_release(y); cabi_release(idx); }
      if (strlen(cabi_last_error()) == 0) bad_status = 1;
    }
  }
  cabi_release(NULL);  /* releasing NULL is a no-op */
  printf("DONE %d\n", calls);
  return bad_status;
}
