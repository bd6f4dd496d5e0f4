// GPU tests of the CUDA event timer (label gpu): they skip without a device. The
// side-stream tests document the fallback's blind spot: events miss hidden work,
// which only the host span (after a whole-device sync) bounds.
#include "eval/timing/event_timer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <thread>

#include "cheating_candidates.h"
#include "device/backend.h"
#include "gpu_required.h"
#include "test_kernels.h"

namespace kh {
namespace {

class EventTimerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KH_REQUIRE_GPU();
    backend_ = make_backend("cuda");
    stream_ = static_cast<cudaStream_t>(backend_->stream());
    timer_ = backend_->make_timer(TimerKind::cuda_event);
    test::launch_spin(stream_, 1);
    backend_->synchronize();
  }

  IterationSample time_one(const std::function<void()>& call) {
    backend_->flush_cache();
    timer_->start();
    call();
    timer_->stop();
    const std::vector<IterationSample> samples = timer_->finish();
    EXPECT_EQ(samples.size(), 1u);
    return samples.empty() ? IterationSample{} : samples.front();
  }

  std::unique_ptr<Backend> backend_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<IterationTimer> timer_;
};

constexpr double kHiddenMs = test::kHiddenUs * 1e-3;

TEST_F(EventTimerTest, SpinKernelOf100usReads100us) {
  std::vector<double> spans;
  for (int i = 0; i < 5; ++i) {
    const IterationSample s = time_one([&] { test::launch_spin(stream_, 100); });
    EXPECT_TRUE(s.valid);
    EXPECT_GE(s.host_ms, s.span_ms);
    spans.push_back(s.span_ms);
  }
  std::sort(spans.begin(), spans.end());
  EXPECT_NEAR(spans[2], 0.100, 0.010);
  EXPECT_EQ(timer_->name(), "cuda_event");
}

TEST_F(EventTimerTest, SideStreamWorkIsMissedByEventsButBoundedByTheHostSpan) {
  const IterationSample s = time_one([&] { test::side_stream_candidate(stream_); });
  EXPECT_LT(s.span_ms, kHiddenMs / 2);
  EXPECT_GE(s.host_ms, kHiddenMs);
}

TEST_F(EventTimerTest, JoinedThreadWorkIsMissedByEventsButBoundedByTheHostSpan) {
  const IterationSample s = time_one([&] { test::joined_thread_candidate(stream_); });
  EXPECT_LT(s.span_ms, kHiddenMs / 2);
  EXPECT_GE(s.host_ms, kHiddenMs);
}

TEST_F(EventTimerTest, UnjoinedThreadWorkIsMissedByEventsButBoundedByTheHostSpan) {
  std::thread leaked;
  const IterationSample s = time_one([&] { leaked = test::unjoined_thread_candidate(stream_); });
  leaked.join();
  EXPECT_LT(s.span_ms, kHiddenMs / 2);
  EXPECT_GE(s.host_ms, kHiddenMs);
}

TEST_F(EventTimerTest, EmptyKernelIsSmallAndNeverNegative) {
  const IterationSample s = time_one([&] { test::launch_empty(stream_); });
  EXPECT_GE(s.span_ms, 0.0);
  EXPECT_LT(s.span_ms, 0.010);
}

}  // namespace
}  // namespace kh
