/* Calls the cabi library from C: good calls (plain, with byte_offset, with explicit compact
 * strides), a 0-d result, and bad calls (a wrong shape, an absurd ndim) that must fail with a
 * message.
 * Usage: basic [B]   (prints RESULT/ERROR lines that the pytest compares with numpy) */
#include <stdlib.h>
#include <string.h>
#include "inputs.h"

static int fail(const char* what, int status) {
  printf("FAILED %s status %d: %s\n", what, status, cabi_last_error());
  return 1;
}

/* affine with a bad x: must fail with AGC_STATUS_INVALID_ARGUMENT and a message (printed as an
 * ERROR line), leaving the results NULL. Returns 0 when it does. */
static int rejects(const char* what, DLTensor* bad, DLTensor* tw, DLTensor* tb) {
  DLTensor *y = NULL, *idx = NULL;
  int status = cabi_affine(bad, tw, tb, &y, &idx);
  printf("ERROR %d %s\n", status, cabi_last_error());
  if (status != AGC_STATUS_INVALID_ARGUMENT || y != NULL || idx != NULL) {
    printf("FAILED %s accepted\n", what);
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  int64_t B = argc > 1 ? atoll(argv[1]) : 3, i;
  float* x = (float*)malloc(sizeof(float) * (size_t)(B * 5 + 2));
  float w[12], b[3];
  double v[5];
  int64_t xshape[2] = {B, 4}, wshape[2] = {4, 3}, bshape[1] = {3}, vshape[1] = {5};
  DLTensor *y = NULL, *idx = NULL, *s = NULL;
  int status;

  for (i = 0; i < B * 4; i++) x[i] = x_value(i, 0);
  for (i = 0; i < 12; i++) w[i] = w_value(i);
  for (i = 0; i < 3; i++) b[i] = b_value(i);
  for (i = 0; i < 5; i++) v[i] = v_value(i);
  DLTensor tx = make_tensor(x, 2, xshape, 2, 32);
  DLTensor tw = make_tensor(w, 2, wshape, 2, 32);
  DLTensor tb = make_tensor(b, 1, bshape, 2, 32);
  DLTensor tv = make_tensor(v, 1, vshape, 2, 64);

  if ((status = cabi_affine(&tx, &tw, &tb, &y, &idx)) != 0) return fail("affine", status);
  print_tensor("affine.y", y);
  print_tensor("affine.idx", idx);
  cabi_release(y);
  cabi_release(idx);

  if ((status = cabi_sumsq(&tv, &s)) != 0) return fail("sumsq", status);
  print_tensor("sumsq", s);
  cabi_release(s);

  /* The same x two floats into a buffer, reached through byte_offset. */
  {
    float* shifted = (float*)malloc(sizeof(float) * (size_t)(B * 4 + 2));
    memcpy(shifted + 2, x, sizeof(float) * (size_t)(B * 4));
    DLTensor to = make_tensor(shifted, 2, xshape, 2, 32);
    to.byte_offset = 2 * sizeof(float);
    if ((status = cabi_affine(&to, &tw, &tb, &y, &idx)) != 0) return fail("affine with byte_offset", status);
    print_tensor("offset.y", y);
    cabi_release(y);
    cabi_release(idx);
    free(shifted);
  }

  /* Explicit strides that describe the compact row-major layout are accepted. */
  {
    int64_t strides[2] = {4, 1};
    DLTensor ts = tx;
    ts.strides = strides;
    if ((status = cabi_affine(&ts, &tw, &tb, &y, &idx)) != 0) return fail("affine with strides", status);
    print_tensor("strided.y", y);
    cabi_release(y);
    cabi_release(idx);
  }

  /* x with 5 columns instead of 4. */
  int64_t bad_shape[2] = {B, 5};
  DLTensor bad = make_tensor(x, 2, bad_shape, 2, 32);
  if (rejects("bad shape", &bad, &tw, &tb)) return 1;
  /* ndim 0x7fffffff with a 2-entry shape array: rejected without reading past the array. */
  DLTensor huge = tx;
  huge.ndim = 0x7fffffff;
  if (rejects("huge ndim", &huge, &tw, &tb)) return 1;
  free(x);
  printf("DONE\n");
  return 0;
}
