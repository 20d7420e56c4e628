// The header from C++: extern "C" linkage, std::vector data, exceptions off the ABI.
#include LIB_HEADER
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main() {
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, b = {0.5f, 1.5f, 2.5f};
  std::vector<int64_t> xs = {2, 3}, bs = {3};
  DLTensor tx{}, tb{};
  tx.data = x.data(); tx.device.device_type = kDLCPU; tx.ndim = 2; tx.dtype = {kDLFloat, 32, 1}; tx.shape = xs.data();
  tb.data = b.data(); tb.device.device_type = kDLCPU; tb.ndim = 1; tb.dtype = {kDLFloat, 32, 1}; tb.shape = bs.data();
  DLTensor* y = nullptr;
  if (demo_add_bias(&tx, &tb, &y) != AGC_STATUS_OK) { std::fprintf(stderr, "%s\n", demo_last_error()); return 1; }
  const float* out = static_cast<const float*>(y->data);
  for (int i = 0; i < 6; i++) if (out[i] != x[i] + b[i % 3]) return 1;
  demo_release(y);
  tb.ndim = 2;
  int st = demo_add_bias(&tx, &tb, &y);
  std::string msg = demo_last_error();
  if (st != AGC_STATUS_INVALID_ARGUMENT || y != nullptr) return 1;
  return msg.find("parameter 'b' expects shape (3,) float32") != std::string::npos ? 0 : 1;
}
