// Calls the cabi library through the generated C++ header cabi.hpp: owned results (released by
// their destructors), std::tuple for several results, _into, and cabi::Error for failures (a bad
// argument, out of memory deep in a recursion).
// Usage: hpp [B]   (prints RESULT/ERROR/BAD lines like basic.c)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cabi.hpp"
#include "affine_inputs.hpp"

int main(int argc, char** argv) {
  AffineInputs in(argc > 1 ? std::atoll(argv[1]) : 3);
  const int64_t B = in.B;
  std::vector<float>& x = in.x;
  const DLTensor &tx = in.tx, &tw = in.tw, &tb = in.tb;

  auto [y, idx] = cabi::affine(tx, tw, tb);
  print_tensor("affine.y", y.get());
  print_tensor("affine.idx", idx.get());

  std::vector<float> yv(static_cast<size_t>(B * 3));
  std::vector<int64_t> ys{B, 3}, iv(static_cast<size_t>(B)), is{B};
  DLTensor ty = make_tensor(yv.data(), 2, ys.data(), 2, 32);
  DLTensor ti = make_tensor(iv.data(), 1, is.data(), 0, 64);
  cabi::affine_into(tx, tw, tb, ty, ti);
  print_tensor("into.y", &ty);
  print_tensor("into.idx", &ti);

  std::vector<double> v(5);
  for (int64_t i = 0; i < 5; ++i) v[i] = v_value(i);
  int64_t vs[1] = {5};
  DLTensor tv = make_tensor(v.data(), 1, vs, 2, 64);
  cabi::Tensor s = cabi::sumsq(tv);
  print_tensor("sumsq", s.get());

  std::vector<int64_t> bad_shape{B + 1, 4, 1};
  const DLTensor bad = view(x, bad_shape);
  try {
    cabi::affine(bad, tw, tb);
    return 1;
  } catch (const cabi::Error& e) {
    std::printf("ERROR %d %s\n", e.status(), e.what());
  }
  std::vector<float> big(4096, 1.0f);
  std::vector<int64_t> bigs{4096};
  int64_t depth = 20;
  DLTensor tk = make_tensor(&depth, 0, nullptr, 0, 64);
  try {
    cabi::chain(view(big, bigs), tk);
    return 1;
  } catch (const cabi::Error& e) {
    std::printf("BAD oom %d %s\n", e.status(), e.what());
  }
  std::printf("DONE\n");
  return 0;
}
