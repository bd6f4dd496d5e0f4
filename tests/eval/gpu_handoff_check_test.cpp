// find_gpu_handoff where no process of the caller's holds a CUDA context: no finding; and
// on a host without the driver's NVML, a reason that names the library instead of a
// silent pass. The cheat it exists for is CudaEndToEnd.WorkHandedToAnotherProcessIsRewardHack.
#include "eval/gpu_handoff_check.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kh {
namespace {

TEST(GpuHandOffCheck, AChildWithoutAContextIsNoFinding) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const GpuHandOff h = find_gpu_handoff(::getpid());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(h.finding) << *h.finding;
  if (h.not_checked) {
    EXPECT_NE(h.not_checked->find("libnvidia-ml.so.1"), std::string::npos) << *h.not_checked;
    std::cout << "not checked here: " << *h.not_checked << "\n";
  }
}

}  // namespace
}  // namespace kh
