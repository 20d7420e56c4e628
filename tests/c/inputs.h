/* Deterministic inputs and result printing shared by the C and C++ drivers.
 * The formulas are mirrored by x_value/w_value/b_value/v_value in cabi.py. */
#ifndef AGC_TEST_INPUTS_H
#define AGC_TEST_INPUTS_H

#include <stdint.h>
#include <stdio.h>
#include "cabi.h"

static inline float x_value(int64_t i, int t) { return (float)((i * 7 + t) % 11 - 5) / 4.0f; }
static inline float w_value(int64_t i) { return (float)((i * 5) % 9 - 4) / 8.0f; }
static inline float b_value(int64_t i) { return (float)(i % 3 - 1) / 2.0f; }
static inline double v_value(int64_t i) { return (double)((i * 3) % 7 - 3) / 3.0; }

static inline DLTensor make_tensor(void* data, int32_t ndim, int64_t* shape, uint8_t code, uint8_t bits) {
  DLTensor t;
  t.data = data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = NULL;
  t.byte_offset = 0;
  return t;
}

/* RESULT <label> <dtype> <ndim> <dims...> : <values...> */
static inline void print_tensor(const char* label, const DLTensor* t) {
  const char* name = "unknown";
  int64_t n = 1, i;
  int d;
  if (t->dtype.code == 2 && t->dtype.bits == 32) name = "float32";
  if (t->dtype.code == 2 && t->dtype.bits == 64) name = "float64";
  if (t->dtype.code == 0 && t->dtype.bits == 32) name = "int32";
  if (t->dtype.code == 0 && t->dtype.bits == 64) name = "int64";
  if (t->dtype.code == 6 && t->dtype.bits == 8) name = "bool";
  printf("RESULT %s %s %d", label, name, (int)t->ndim);
  for (d = 0; d < t->ndim; d++) {
    printf(" %lld", (long long)t->shape[d]);
    n *= t->shape[d];
  }
  printf(" :");
  for (i = 0; i < n; i++) {
    /* element offset of flat index i, honouring strides when given */
    int64_t off = 0, rest = i;
    const char* base = (const char*)t->data + t->byte_offset;
    for (d = t->ndim - 1; d >= 0; d--) {
      int64_t k = rest % t->shape[d], stride = 1, e;
      rest /= t->shape[d];
      if (t->strides) stride = t->strides[d];
      else for (e = d + 1; e < t->ndim; e++) stride *= t->shape[e];
      off += k * stride;
    }
    if (t->dtype.code == 2 && t->dtype.bits == 32) printf(" %.9g", (double)((const float*)base)[off]);
    else if (t->dtype.code == 2 && t->dtype.bits == 64) printf(" %.17g", ((const double*)base)[off]);
    else if (t->dtype.code == 0 && t->dtype.bits == 32) printf(" %d", (int)((const int32_t*)base)[off]);
    else if (t->dtype.code == 0 && t->dtype.bits == 64) printf(" %lld", (long long)((const int64_t*)base)[off]);
    else if (t->dtype.code == 6) printf(" %d", (int)((const uint8_t*)base)[off]);
  }
  printf("\n");
}

#endif
