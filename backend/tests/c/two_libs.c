/* Two agc static archives (each with its own runtime copy) in one program, both exporting
 * `add_bias` (C symbols demo_add_bias and demo2_add_bias). */
#include "demo.h"
#include "demo2.h"
#include <stdio.h>

int main(void) {
  float xs[3] = {1, 2, 3}, bs[3] = {1, 1, 1};
  int64_t xshape[2] = {1, 3}, bshape[1] = {3};
  DLTensor x = {xs, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, xshape, NULL, 0};
  DLTensor b = {bs, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, bshape, NULL, 0};
  DLTensor *y1 = NULL, *y2 = NULL;
  if (demo_add_bias(&x, &b, &y1) || demo2_add_bias(&x, &b, &y2)) return 1;
  int ok = ((float*)y1->data)[2] == 4.0f && ((float*)y2->data)[2] == 4.0f;
  demo_release(y1);
  demo2_release(y2);
  x.ndim = 1;
  if (demo2_add_bias(&x, &b, &y2) == 0 || demo_last_error()[0] != '\0' || demo2_last_error()[0] == '\0') ok = 0;
  return ok ? 0 : 1;
}
