/* Two agc libraries (cabi and second, each with its own copy of the runtime) in one program,
 * both headers included together; each library reports its own errors, and both export a
 * function named `affine` (C symbols cabi_affine and second_affine). */
#include <stdlib.h>
#include <string.h>
#include "inputs.h"
#include "second.h"

int main(void) {
  float x[8], w[12], b[3];
  double m[6] = {1, 2, 3, 4, 5, 6}, s[3] = {0.5, -1, 2};
  int64_t xshape[2] = {2, 4}, wshape[2] = {4, 3}, bshape[1] = {3}, mshape[2] = {3, 2}, sshape[1] = {3};
  int64_t k, bad_s[1] = {4};
  DLTensor *y = NULL, *idx = NULL, *r = NULL, *a2 = NULL;
  for (k = 0; k < 8; k++) x[k] = x_value(k, 0);
  for (k = 0; k < 12; k++) w[k] = w_value(k);
  for (k = 0; k < 3; k++) b[k] = b_value(k);
  DLTensor tx = make_tensor(x, 2, xshape, 2, 32), tw = make_tensor(w, 2, wshape, 2, 32);
  DLTensor tb = make_tensor(b, 1, bshape, 2, 32);
  DLTensor tm = make_tensor(m, 2, mshape, 2, 64), ts = make_tensor(s, 1, sshape, 2, 64);
  DLTensor tbad = make_tensor(s, 1, bad_s, 2, 64);

  if (cabi_affine(&tx, &tw, &tb, &y, &idx) != AGC_STATUS_OK) { printf("FAILED affine: %s\n", cabi_last_error()); return 1; }
  if (second_scale_rows(&tm, &ts, &r) != AGC_STATUS_OK) { printf("FAILED scale_rows: %s\n", second_last_error()); return 1; }
  if (second_affine(&tm, &ts, &a2) != AGC_STATUS_OK) { printf("FAILED second affine: %s\n", second_last_error()); return 1; }
  print_tensor("affine.y", y);
  print_tensor("scale_rows", r);
  print_tensor("second.affine", a2);
  cabi_release(y);
  cabi_release(idx);
  second_release(r);
  second_release(a2);

  /* a failure in `second` is reported by second_last_error, not by cabi's */
  if (second_scale_rows(&tm, &tbad, &r) != AGC_STATUS_INVALID_ARGUMENT) { printf("FAILED bad call accepted\n"); return 1; }
  printf("ERROR second %s\n", second_last_error());
  printf("ERROR cabi [%s]\n", cabi_last_error());
  if (strstr(second_last_error(), "scale_rows") == NULL || strlen(cabi_last_error()) != 0) return 1;
  printf("DONE\n");
  return 0;
}
