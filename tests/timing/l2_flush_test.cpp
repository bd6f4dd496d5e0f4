// GPU test of the L2 flush (label gpu): a 16 MB buffer, which fits in the H200's
// 60 MB L2, is read slower right after a flush than right after a warm read.
#include "timing/l2_flush.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "device/backend.h"
#include "gpu_required.h"
#include "test_kernels.h"
#include "timing/cuda_event.h"

namespace kh {
namespace {

constexpr std::size_t kFloats = (16u << 20) / sizeof(float);

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Event-timed read of the buffer, optionally after an L2 flush.
double timed_read_ms(Backend& backend, const float* data, float* out, bool flush_first) {
  auto stream = static_cast<cudaStream_t>(backend.stream());
  if (flush_first) {
    backend.flush_cache();
  } else {
    test::launch_read(data, kFloats, out, stream);  // leaves the buffer in L2
    backend.synchronize();
  }
  CudaEvent begin;
  CudaEvent end;
  begin.record(stream);
  test::launch_read(data, kFloats, out, stream);
  end.record(stream);
  backend.synchronize();
  return CudaEvent::elapsed_ms(begin, end);
}

TEST(L2Flush, BufferIsTwiceTheL2) {
  KH_REQUIRE_GPU();
  const auto backend = make_backend("cuda");
  const L2Flush flush(backend->info().l2_bytes);
  EXPECT_EQ(flush.bytes(), 2 * backend->info().l2_bytes);
}

TEST(L2Flush, ColdReadIsSlowerThanWarmRead) {
  KH_REQUIRE_GPU();
  const auto backend = make_backend("cuda");
  auto* data = static_cast<float*>(backend->allocate(kFloats * sizeof(float)));
  auto* out = static_cast<float*>(backend->allocate(sizeof(float)));
  backend->fill(data, 0, kFloats * sizeof(float));
  std::vector<double> warm;
  std::vector<double> cold;
  for (int i = 0; i < 11; ++i) {
    warm.push_back(timed_read_ms(*backend, data, out, false));
    cold.push_back(timed_read_ms(*backend, data, out, true));
  }
  backend->release(data);
  backend->release(out);
  EXPECT_GT(median(cold), median(warm)) << "cold " << median(cold) << " ms, warm " << median(warm) << " ms";
}

}  // namespace
}  // namespace kh
