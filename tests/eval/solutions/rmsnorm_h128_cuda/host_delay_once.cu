// Honest, but now and then slow to launch: one call in nine waits 400 us on the host before
// its kernel, as a descheduled thread or a CUPTI buffer change can. The CUDA events of that
// iteration see the GPU idle; CUPTI sees only the kernel. With five timed iterations a trial
// holds at most one such call, which cannot move a median: not tampering.
#include <chrono>
#include <thread>

#include "rmsnorm_common.cuh"

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  static int calls = 0;
  if (++calls % 9 == 4) std::this_thread::sleep_for(std::chrono::microseconds(400));
  launch_rmsnorm(x, w, y, stream);
}
