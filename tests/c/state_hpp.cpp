// A context from C++ through the generated state_model.hpp: state_model::Context owns it (RAII,
// movable), exports take it first, save/restore round-trip the variables, and a failure throws
// state_model::Error. Usage: state_hpp FILE   (FILE: where to save; prints STEPS/BAD lines)
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "state_model.hpp"

namespace {
int64_t steps(state_model::Context& ctx) {
  state_model::Tensor n = state_model::step_count(ctx);
  return *static_cast<const int64_t*>(n->data);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::vector<float> x(2 * 6, 0.5f);
  std::vector<int32_t> y{0, 2};
  int64_t xs[2] = {2, 6}, ys[1] = {2};
  DLTensor tx{}, ty{};
  tx.data = x.data();
  tx.device.device_type = kDLCPU;
  tx.ndim = 2;
  tx.dtype = {kDLFloat, 32, 1};
  tx.shape = xs;
  ty = tx;
  ty.data = y.data();
  ty.ndim = 1;
  ty.dtype = {kDLInt, 32, 1};
  ty.shape = ys;

  state_model::Context a;
  for (int i = 0; i < 3; ++i) state_model::train_step(a, tx, ty);
  const int64_t trained = steps(a);
  state_model::Context b = std::move(a);
  const int64_t moved = steps(b);
  b.save(argv[1]);
  state_model::Context c;
  const int64_t fresh = steps(c);
  c.restore(argv[1]);
  std::printf("STEPS %lld %lld %lld %lld\n", static_cast<long long>(trained), static_cast<long long>(moved),
              static_cast<long long>(fresh), static_cast<long long>(steps(c)));
  try {
    c.restore(std::string(argv[1]) + ".missing");
    return 1;
  } catch (const state_model::Error& e) {
    std::printf("BAD restore %d %s\n", e.status(), e.what());
  }
  std::printf("STEPS after %lld\n", static_cast<long long>(steps(c)));
  std::printf("DONE\n");
  return 0;
}
