// The C++ drivers' arguments of cabi's affine for B rows (the formulas of inputs.h), as
// std::vectors with DLTensor views of them.
#pragma once
#include <cstdint>
#include <vector>

#include "inputs.h"

// A float32 DLTensor over `data` with shape `shape` (both must outlive it).
inline DLTensor view(std::vector<float>& data, std::vector<int64_t>& shape) {
  return make_tensor(data.data(), static_cast<int32_t>(shape.size()), shape.data(), 2, 32);
}

// x (B, 4), w (4, 3), b (3,) and their tensors tx, tw, tb.
struct AffineInputs {
  explicit AffineInputs(int64_t rows) : B(rows), x(rows * 4), w(12), b(3), xs{rows, 4}, ws{4, 3}, bs{3} {
    for (int64_t i = 0; i < B * 4; ++i) x[i] = x_value(i, 0);
    for (int64_t i = 0; i < 12; ++i) w[i] = w_value(i);
    for (int64_t i = 0; i < 3; ++i) b[i] = b_value(i);
    tx = view(x, xs);
    tw = view(w, ws);
    tb = view(b, bs);
  }
  AffineInputs(const AffineInputs&) = delete;
  AffineInputs& operator=(const AffineInputs&) = delete;

  int64_t B;
  std::vector<float> x, w, b;
  std::vector<int64_t> xs, ws, bs;
  DLTensor tx{}, tw{}, tb{};
};
