// Calls the MLP built twice, with embedded weights (mlp_embedded) and with external weights
// (mlp_external, mapping mlp_external.weights through a context), on the same points.
// Prints one line per point: x, y, and the probability of class 1 from each library.
#include <cstdio>
#include <memory>
#include <vector>

#include "mlp_embedded.h"
#include "mlp_external.h"

namespace {

DLTensor f32_tensor(float* data, std::vector<int64_t>& shape) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape.data();
  return t;
}

}  // namespace

int main() {
  std::vector<float> points = {0.5f, 0.5f, -1.0f, 2.0f, 2.5f, -0.5f, -2.0f, -1.5f, 0.0f, 1.0f};
  const int64_t n = static_cast<int64_t>(points.size() / 2);
  std::vector<int64_t> x_shape = {n, 2}, p_shape = {n, 2};
  DLTensor x = f32_tensor(points.data(), x_shape);

  // Embedded weights: no context; results written into our own buffer.
  std::vector<float> embedded(n * 2);
  DLTensor out = f32_tensor(embedded.data(), p_shape);
  if (mlp_embedded_predict_into(&x, &out) != AGC_STATUS_OK) {
    std::fprintf(stderr, "embedded: %s\n", mlp_embedded_last_error());
    return 1;
  }

  // External weights: a context maps the weights file.
  mlp_external_context* raw = nullptr;
  if (mlp_external_create(&raw, MLP_WEIGHTS) != AGC_STATUS_OK) {
    std::fprintf(stderr, "create: %s\n", mlp_external_last_error());
    return 1;
  }
  std::unique_ptr<mlp_external_context, decltype(&mlp_external_destroy)> ctx(raw, mlp_external_destroy);
  DLTensor* result = nullptr;
  if (mlp_external_predict(ctx.get(), &x, &result) != AGC_STATUS_OK) {
    std::fprintf(stderr, "external: %s\n", mlp_external_last_error());
    return 1;
  }
  const float* external = static_cast<const float*>(result->data);
  for (int64_t i = 0; i < n; i++) {
    std::printf("%g %g %.6f %.6f\n", points[2 * i], points[2 * i + 1], embedded[2 * i + 1], external[2 * i + 1]);
  }
  mlp_external_release(result);
  return 0;
}
