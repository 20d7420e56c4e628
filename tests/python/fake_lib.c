/* A hand-written library with agc's C ABI, so that agc.load is tested without the compiler.
 *
 *   scale2(x: f32[...]) -> f32[...]           result with byte_offset and explicit strides
 *   split(x: f32[R, C]) -> (f64[()], i64[R, C])  second result in column-major strides
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void* data; DLDevice device; int32_t ndim; DLDataType dtype;
  int64_t* shape; int64_t* strides; uint64_t byte_offset;
} DLTensor;

static _Thread_local char last_error[256];
static int live = 0;

const char* fake_last_error(void) { return last_error; }
int fake_live(void) { return live; }

const char* fake_metadata(void) {
  return "{\"module\": \"fake\", \"functions\": ["
         "{\"name\": \"scale2\", \"doc\": \"Doubles x.\", \"params\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"N\"]}],"
         " \"results\": [{\"dtype\": \"float32\", \"shape\": [\"N\"]}]},"
         "{\"name\": \"split\", \"doc\": \"\", \"params\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"R\", \"C\"]}],"
         " \"results\": [{\"dtype\": \"float64\", \"shape\": []}, {\"dtype\": \"int64\", \"shape\": [\"R\", \"C\"]}]}]}";
}

static DLTensor* new_tensor(int ndim, const int64_t* shape, uint8_t code, uint8_t bits, size_t pad) {
  DLTensor* t = calloc(1, sizeof(DLTensor));
  int64_t n = 1;
  t->ndim = ndim;
  t->device.device_type = 1;
  t->dtype.code = code; t->dtype.bits = bits; t->dtype.lanes = 1;
  t->shape = calloc(ndim ? ndim : 1, sizeof(int64_t));
  t->strides = calloc(ndim ? ndim : 1, sizeof(int64_t));
  for (int i = 0; i < ndim; i++) { t->shape[i] = shape[i]; n *= shape[i]; }
  t->data = calloc(1, pad + (size_t)n * bits / 8 + 1);
  t->byte_offset = pad;
  live++;
  return t;
}

void fake_release(DLTensor* t) {
  if (!t) return;
  free(t->data); free(t->shape); free(t->strides); free(t);
  live--;
}

static int check_f32(const char* fn, const DLTensor* x, int ndim) {
  if (x->dtype.code != 2 || x->dtype.bits != 32 || x->ndim != ndim || x->strides != NULL) {
    snprintf(last_error, sizeof last_error, "%s: parameter 'x' expects a contiguous float32 tensor of rank %d", fn, ndim);
    return 1;
  }
  return 0;
}

int scale2(const DLTensor* x, DLTensor** out) {
  if (check_f32("scale2", x, 1)) return 1;
  DLTensor* r = new_tensor(1, x->shape, 2, 32, 8);
  r->strides[0] = 1;
  const float* in = (const float*)((const char*)x->data + x->byte_offset);
  float* o = (float*)((char*)r->data + r->byte_offset);
  for (int64_t i = 0; i < x->shape[0]; i++) o[i] = 2 * in[i];
  *out = r;
  return 0;
}

int split(const DLTensor* x, DLTensor** total, DLTensor** cast) {
  if (check_f32("split", x, 2)) return 1;
  int64_t rows = x->shape[0], cols = x->shape[1];
  DLTensor* s = new_tensor(0, NULL, 2, 64, 0);
  DLTensor* c = new_tensor(2, x->shape, 0, 64, 0);
  c->strides[0] = 1; c->strides[1] = rows;  /* column-major */
  const float* in = (const float*)x->data;
  double sum = 0;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      sum += in[i * cols + j];
      ((int64_t*)c->data)[j * rows + i] = (int64_t)in[i * cols + j];
    }
  *(double*)s->data = sum;
  *total = s; *cast = c;
  return 0;
}
