// Calls the cabi library from C++ through the generated header, with RAII release of results, and
// its allocation-free _into variant on std::vector buffers.
// Usage: basic_cpp [B]   (prints RESULT/ERROR lines like basic.c)
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "affine_inputs.hpp"

namespace {
struct Release {
  void operator()(DLTensor* t) const { cabi_release(t); }
};
using Result = std::unique_ptr<DLTensor, Release>;

}  // namespace

int main(int argc, char** argv) {
  AffineInputs in(argc > 1 ? std::atoll(argv[1]) : 3);
  const int64_t B = in.B;
  std::vector<float>& x = in.x;
  const DLTensor &tx = in.tx, &tw = in.tw, &tb = in.tb;

  DLTensor* y_raw = nullptr;
  DLTensor* idx_raw = nullptr;
  int status = cabi_affine(&tx, &tw, &tb, &y_raw, &idx_raw);
  if (status != 0) {
    std::printf("FAILED affine status %d: %s\n", status, cabi_last_error());
    return 1;
  }
  Result y(y_raw), idx(idx_raw);
  print_tensor("affine.y", y.get());
  print_tensor("affine.idx", idx.get());

  // The allocation-free variant, into std::vectors shaped by cabi_affine_result_shapes.
  std::vector<int64_t> ys(2), is(1);
  status = cabi_affine_result_shapes(&tx, &tw, &tb, ys.data(), is.data());
  if (status != 0) {
    std::printf("FAILED affine_result_shapes status %d: %s\n", status, cabi_last_error());
    return 1;
  }
  std::vector<float> yv(static_cast<size_t>(ys[0] * ys[1]));
  std::vector<int64_t> iv(static_cast<size_t>(is[0]));
  DLTensor ty = make_tensor(yv.data(), 2, ys.data(), 2, 32);
  DLTensor ti = make_tensor(iv.data(), 1, is.data(), 0, 64);
  status = cabi_affine_into(&tx, &tw, &tb, &ty, &ti);
  if (status != 0) {
    std::printf("FAILED affine_into status %d: %s\n", status, cabi_last_error());
    return 1;
  }
  print_tensor("into.y", &ty);
  print_tensor("into.idx", &ti);
  status = cabi_affine_into(&tx, &tw, &tb, nullptr, &ti);
  std::printf("BAD null %d %s\n", status, std::string(cabi_last_error()).c_str());
  if (status == 0) return 1;

  std::vector<int64_t> bad_shape{B + 1, 4, 1};
  const DLTensor bad = view(x, bad_shape);
  status = cabi_affine(&bad, &tw, &tb, &y_raw, &idx_raw);
  std::printf("ERROR %d %s\n", status, std::string(cabi_last_error()).c_str());
  std::printf("DONE\n");
  return status != 0 ? 0 : 1;
}
