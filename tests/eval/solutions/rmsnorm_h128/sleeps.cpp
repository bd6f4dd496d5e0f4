// Correct, after sleeping 300 ms a call: a stand-in for a slow worker, to see whether the
// reference's and the candidate's checks overlap.
#include <chrono>
#include <thread>

#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  rmsnorm_rows(x, w, y, 0, x->shape[0]);
}
