// GPU tests of the CUPTI span timer (label gpu): they skip without a device.
#include "timing/cupti_span_timer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

#include "cheating_candidates.h"
#include "device/backend.h"
#include "error/error.h"
#include "gpu_required.h"
#include "test_kernels.h"

namespace kh {
namespace {

class CuptiSpanTimerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KH_REQUIRE_GPU();
    backend_ = make_backend("cuda");
    stream_ = static_cast<cudaStream_t>(backend_->stream());
    timer_ = backend_->make_timer(TimerKind::cupti_span);
    // Warm-up before the first window: module loading and first-launch costs stay
    // outside timing, and its records are ignored as pre-timing activity.
    test::launch_spin(stream_, 1);
    test::launch_empty(stream_);
    backend_->synchronize();
  }

  // One flushed, timed iteration of call; its single sample.
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

TEST_F(CuptiSpanTimerTest, SpinKernelOf100usReads100us) {
  std::vector<double> spans;
  for (int i = 0; i < 5; ++i) {
    const IterationSample s = time_one([&] { test::launch_spin(stream_, 100); });
    ASSERT_TRUE(s.valid);
    EXPECT_EQ(s.activities, 1);
    spans.push_back(s.span_ms);
  }
  std::sort(spans.begin(), spans.end());
  EXPECT_NEAR(spans[2], 0.100, 0.010);
  EXPECT_EQ(timer_->name(), "cupti_span");
}

TEST_F(CuptiSpanTimerTest, SideStreamWorkIsInTheSpan) {
  const IterationSample s = time_one([&] { test::side_stream_candidate(stream_); });
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.activities, 2);
  EXPECT_GE(s.span_ms, test::kHiddenUs * 1e-3 * 0.98);
}

TEST_F(CuptiSpanTimerTest, JoinedThreadWorkIsInTheSpan) {
  const IterationSample s = time_one([&] { test::joined_thread_candidate(stream_); });
  ASSERT_TRUE(s.valid);
  EXPECT_GE(s.span_ms, test::kHiddenUs * 1e-3 * 0.98);
}

TEST_F(CuptiSpanTimerTest, UnjoinedThreadWorkSubmittedBeforeReturnIsInTheSpan) {
  std::thread leaked;
  const IterationSample s = time_one([&] { leaked = test::unjoined_thread_candidate(stream_); });
  leaked.join();
  ASSERT_TRUE(s.valid);
  EXPECT_GE(s.span_ms, test::kHiddenUs * 1e-3 * 0.98);
}

TEST_F(CuptiSpanTimerTest, WorkLaunchedAfterStopIsAStray) {
  std::atomic<bool> stopped{false};
  std::thread late([&] {
    while (!stopped.load()) std::this_thread::yield();
    test::launch_spin(nullptr, 20);
  });
  timer_->start();
  test::launch_spin(stream_, 10);
  timer_->stop();
  stopped.store(true);
  late.join();
  backend_->synchronize();
  const std::vector<IterationSample> samples = timer_->finish();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_TRUE(samples[0].valid);
  EXPECT_EQ(samples[0].activities, 1);
  EXPECT_GE(timer_->stray_activities(), 1u);
}

TEST_F(CuptiSpanTimerTest, WindowWithoutKernelIsInvalid) {
  const IterationSample s = time_one([] {});
  EXPECT_FALSE(s.valid);
  EXPECT_EQ(s.activities, 0);
  EXPECT_GT(s.host_ms, 0.0);
}

TEST_F(CuptiSpanTimerTest, EmptyKernelSpanIsSmall) {
  const IterationSample s = time_one([&] { test::launch_empty(stream_); });
  ASSERT_TRUE(s.valid);
  EXPECT_LT(s.span_ms, 0.010);
}

TEST_F(CuptiSpanTimerTest, HarnessFlushesBetweenWindowsAreNotStrays) {
  for (int i = 0; i < 10; ++i) {
    backend_->flush_cache();
    timer_->start();
    test::launch_spin(stream_, 5);
    timer_->stop();
  }
  const std::vector<IterationSample> samples = timer_->finish();
  ASSERT_EQ(samples.size(), 10u);
  for (const IterationSample& s : samples) EXPECT_TRUE(s.valid);
  EXPECT_EQ(timer_->stray_activities(), 0u);
}

TEST_F(CuptiSpanTimerTest, OnlyOneOwnerOfCuptiActivity) {
  EXPECT_THROW(static_cast<void>(backend_->make_timer(TimerKind::cupti_span)), Error);
}

// The backend keeps CUPTI's subscription between timers: the next timer sees neither the
// first one's windows nor the harness's work between them, and counts no strays for it.
TEST_F(CuptiSpanTimerTest, ANextTimerSeesOnlyItsOwnWindows) {
  const IterationSample first = time_one([&] { test::launch_spin(stream_, 20); });
  ASSERT_TRUE(first.valid);
  timer_.reset();
  for (int i = 0; i < 3; ++i) test::launch_empty(stream_);  // between timers, on the kernel stream
  backend_->synchronize();
  timer_ = backend_->make_timer(TimerKind::cupti_span);
  const IterationSample next = time_one([&] { test::launch_spin(stream_, 20); });
  ASSERT_TRUE(next.valid);
  EXPECT_EQ(next.activities, 1);
  EXPECT_NEAR(next.span_ms, 0.020, 0.005);
  EXPECT_EQ(timer_->stray_activities(), 0u);
}

}  // namespace
}  // namespace kh
