// The CPU backend's candidate for copy_f32, so the benchmarks run in CI.
#include <kharness/kernel.h>

#include <cstring>

void copy(const DLTensor* x, DLTensor* y, kh_stream_t /*stream*/) {
  std::memcpy(y->data, x->data, static_cast<std::size_t>(kh_numel(x)) * sizeof(float));
}
