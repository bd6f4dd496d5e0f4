// Candidate calls that hide work from a stream-bound timer, as an adversarial
// solution would. Each launches a short kernel A on the harness's stream and a
// 200 us kernel B somewhere the harness's stream cannot see.
#pragma once

#include <cuda_runtime_api.h>

#include <future>
#include <stdexcept>
#include <thread>

#include "test_kernels.h"

namespace kh::test {

inline constexpr double kShortUs = 5;
inline constexpr double kHiddenUs = 200;

inline void check(cudaError_t status) {
  if (status != cudaSuccess) throw std::runtime_error(cudaGetErrorString(status));
}

// B on a stream the candidate creates for itself.
inline void side_stream_candidate(cudaStream_t harness) {
  launch_spin(harness, kShortUs);
  cudaStream_t side = nullptr;
  check(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  launch_spin(side, kHiddenUs);
  check(cudaStreamDestroy(side));  // returns at once; B keeps running
}

// B launched from a thread that the call joins before returning.
inline void joined_thread_candidate(cudaStream_t harness) {
  launch_spin(harness, kShortUs);
  std::thread worker([] { launch_spin(nullptr, kHiddenUs); });
  worker.join();
}

// B launched from a thread the call does not join: it returns once B is submitted.
// The thread is handed back so the test can join it after timing.
inline std::thread unjoined_thread_candidate(cudaStream_t harness) {
  launch_spin(harness, kShortUs);
  std::promise<void> submitted;
  std::future<void> done = submitted.get_future();
  std::thread worker([&submitted] {
    cudaStream_t side = nullptr;
    check(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    launch_spin(side, kHiddenUs);
    submitted.set_value();
    check(cudaStreamSynchronize(side));
    check(cudaStreamDestroy(side));
  });
  done.wait();
  return worker;
}

}  // namespace kh::test
