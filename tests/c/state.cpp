// A context from C++ (tests/c/state_model.py): owned by a std::unique_ptr whose deleter is
// state_model_destroy, trained with train_step_into on std::vector buffers, then predict_into.
// Usage: state_cpp N data.bin   (data.bin as tests/c/state.c reads it; prints RESULT lines)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "state_model.h"

namespace {
struct Destroy {
  void operator()(state_model_context* ctx) const { state_model_destroy(ctx); }
};
using Context = std::unique_ptr<state_model_context, Destroy>;

template <typename T>
DLTensor view(std::vector<T>& data, std::vector<int64_t>& shape, uint8_t code) {
  DLTensor t{};
  t.data = data.data();
  t.device.device_type = kDLCPU;
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype.code = code;
  t.dtype.bits = sizeof(T) * 8;
  t.dtype.lanes = 1;
  t.shape = shape.data();
  return t;
}

template <typename T>
bool read(std::ifstream& in, std::vector<T>& v) {
  return static_cast<bool>(in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T))));
}

void print(const char* label, const std::vector<float>& v, const std::vector<int64_t>& shape) {
  std::printf("RESULT %s float32 %zu", label, shape.size());
  for (int64_t d : shape) std::printf(" %lld", static_cast<long long>(d));
  std::printf(" :");
  for (float f : v) std::printf(" %.9g", static_cast<double>(f));
  std::printf("\n");
}

int fail(const std::string& what, int status) {
  std::printf("FAILED %s status %d: %s\n", what.c_str(), status, state_model_last_error());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int64_t steps = std::atoll(argv[1]);
  std::ifstream in(argv[2], std::ios::binary);
  std::vector<int64_t> head(3);
  if (!read(in, head) || head[0] < steps) return fail("reading the data file", 0);
  const int64_t n = head[0], b = head[1], e = head[2];
  std::vector<float> x(static_cast<size_t>(n * b * 6)), eval(static_cast<size_t>(e * 6));
  std::vector<int32_t> y(static_cast<size_t>(n * b));
  if (!read(in, x) || !read(in, y) || !read(in, eval)) return fail("reading the data file", 0);

  state_model_context* raw = nullptr;
  int status = state_model_create(&raw, nullptr);
  if (status != 0) return fail("create", status);
  Context ctx(raw);

  std::vector<int64_t> xs{b, 6}, ys{b}, none{}, ls{steps};
  std::vector<float> xb(static_cast<size_t>(b * 6)), loss(1), losses;
  std::vector<int32_t> yb(static_cast<size_t>(b));
  for (int64_t s = 0; s < steps; ++s) {
    std::copy(x.begin() + s * b * 6, x.begin() + (s + 1) * b * 6, xb.begin());
    std::copy(y.begin() + s * b, y.begin() + (s + 1) * b, yb.begin());
    const DLTensor tx = view(xb, xs, kDLFloat), ty = view(yb, ys, kDLInt);
    DLTensor tl = view(loss, none, kDLFloat);
    if ((status = state_model_train_step_into(ctx.get(), &tx, &ty, &tl)) != 0) return fail("train_step_into", status);
    losses.push_back(loss[0]);
  }
  print("losses", losses, ls);

  std::vector<int64_t> es{e, 6}, ps(2);
  const DLTensor te = view(eval, es, kDLFloat);
  if ((status = state_model_predict_result_shapes(&te, ps.data())) != 0) return fail("predict_result_shapes", status);
  std::vector<float> pred(static_cast<size_t>(ps[0] * ps[1]));
  DLTensor tp = view(pred, ps, kDLFloat);
  if ((status = state_model_predict_into(ctx.get(), &te, &tp)) != 0) return fail("predict_into", status);
  print("pred", pred, ps);

  std::vector<int64_t> count(1);
  DLTensor tc = view(count, none, kDLInt);
  if ((status = state_model_step_count_into(ctx.get(), &tc)) != 0) return fail("step_count_into", status);
  std::printf("RESULT steps int64 0 : %lld\n", static_cast<long long>(count[0]));
  ctx.reset();
  std::printf("DONE\n");
  return 0;
}
