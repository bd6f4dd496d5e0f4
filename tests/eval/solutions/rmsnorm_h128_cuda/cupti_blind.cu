// Hides its slow work from CUPTI: kernel records are switched off (through the CUPTI
// library already loaded in the worker) while a ~300 us kernel runs, and back on for the
// honest kernel after it. CUPTI then sees a call of a few microseconds; the CUDA events
// around the call see the whole of it. Every timed iteration is blind, so no tolerance for
// a one-off host delay may let it through.
#include <dlfcn.h>

#include "rmsnorm_common.cuh"

namespace {

constexpr int kConcurrentKernelKind = 10;  // CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
using ActivityToggle = int (*)(int);

__global__ void busy_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

ActivityToggle cupti(const char* name) { return reinterpret_cast<ActivityToggle>(dlsym(RTLD_DEFAULT, name)); }

}  // namespace

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  static const ActivityToggle disable = cupti("cuptiActivityDisable");
  static const ActivityToggle enable = cupti("cuptiActivityEnable");
  if (disable != nullptr && enable != nullptr) {
    disable(kConcurrentKernelKind);
    busy_kernel<<<1, 32, 0, stream>>>(600000);  // ~300 us at 2 GHz
    enable(kConcurrentKernelKind);
  }
  launch_rmsnorm(x, w, y, stream);
}
