// find_gpu_handoff: a context holder below the worker is a finding and one elsewhere is
// not, nor is the worker's own program below a jail's init (holders given, as the driver
// would list them); asked of the driver where no process
// of the caller's holds a context, no finding, and on a host without the driver's NVML a
// reason that names the library instead of a silent pass. The cheat it exists for is
// CudaEndToEnd.WorkHandedToAnotherProcessIsRewardHack.
#include "eval/gpu_handoff_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "support/paused_child.h"

namespace kh {
namespace {

// A worker outside a PID namespace: the process started runs the program itself.
SpawnedProcess itself(pid_t pid) { return {pid, pid}; }

TEST(GpuHandOffCheck, AHolderBelowTheWorkerIsAFindingNamingIt) {
  if (!test::proc_lists_children()) GTEST_SKIP() << "this kernel has no /proc/<pid>/task/<tid>/children";
  const test::PausedChild child;
  const std::vector<GpuContextHolder> holders = {{::getppid(), 0, 1u << 20}, {child.pid, 1, 612ull << 20}};
  const GpuHandOff h = find_gpu_handoff(itself(::getpid()), holders);
  ASSERT_TRUE(h.finding);
  EXPECT_NE(h.finding->find("process " + std::to_string(child.pid) + " ("), std::string::npos) << *h.finding;
  EXPECT_NE(h.finding->find("on GPU 1 (612 MiB)"), std::string::npos) << *h.finding;
  EXPECT_FALSE(h.not_checked);
}

TEST(GpuHandOffCheck, HoldersElsewhereAreNoFinding) {
  const test::PausedChild child;
  // The caller itself (the worker's own context) and its parent are not below it.
  const std::vector<GpuContextHolder> holders = {{::getpid(), 0, 1u << 20}, {::getppid(), 0, 1u << 20}};
  EXPECT_FALSE(find_gpu_handoff(itself(::getpid()), holders).finding);
  EXPECT_FALSE(find_gpu_handoff(itself(child.pid), {{::getpid(), 0, 0}, {child.pid, 0, 0}}).finding);
}

// In a jail with its own PID namespace kharness starts the init and the worker's program is
// the init's child: its context is the worker's own, a second child's is not.
TEST(GpuHandOffCheck, TheProgramBelowAJailsInitIsNoFindingItsSiblingIs) {
  if (!test::proc_lists_children()) GTEST_SKIP() << "this kernel has no /proc/<pid>/task/<tid>/children";
  const test::PausedChild program;
  const test::PausedChild sibling;
  const SpawnedProcess worker{::getpid(), program.pid};
  EXPECT_FALSE(find_gpu_handoff(worker, {{program.pid, 0, 654ull << 20}}).finding);
  const GpuHandOff h = find_gpu_handoff(worker, {{program.pid, 0, 654ull << 20}, {sibling.pid, 0, 1u << 20}});
  ASSERT_TRUE(h.finding);
  EXPECT_NE(h.finding->find("process " + std::to_string(sibling.pid) + " ("), std::string::npos)
      << *h.finding;
}

TEST(GpuHandOffCheck, AChildWithoutAContextIsNoFinding) {
  const test::PausedChild child;
  const GpuHandOff h = find_gpu_handoff(itself(::getpid()));
  EXPECT_FALSE(h.finding) << *h.finding;
  if (h.not_checked) {
    EXPECT_NE(h.not_checked->find("libnvidia-ml.so.1"), std::string::npos) << *h.not_checked;
    std::cout << "not checked here: " << *h.not_checked << "\n";
  }
}

}  // namespace
}  // namespace kh
