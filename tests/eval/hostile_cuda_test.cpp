// The hostile set of hostile_cpu_test.cpp as CUDA candidates, on the GPU: the attacks
// run in the worker's host code beside a real CUDA context, inside the jail with the
// GPU's device nodes and the driver's libraries. Skips where no GPU is present.
#include <gtest/gtest.h>

#include "hostile_fixture.h"
#include "timing/gpu_required.h"

namespace kh {
namespace {

class HostileCuda : public test::HostileSuite {
 protected:
  void SetUp() override { KH_REQUIRE_GPU(); }
  std::string language() const override { return "cuda"; }
  EvalOptions base_options() const override {
    EvalOptions o;
    o.backend = "cuda";
    o.cache_dir = std::filesystem::temp_directory_path() / "kharness-cuda-e2e-cache";
    return o;
  }
};

TEST_F(HostileCuda, SecretsInTheEnvironmentDoNotReachTheWorker) { check_env_secret(); }
TEST_F(HostileCuda, TheParentsEnvironmentCannotBeRead) { check_parent_environ(); }
TEST_F(HostileCuda, TheParentsMemoryCannotBeRead) { check_parent_mem(); }
TEST_F(HostileCuda, TheParentCannotBeTraced) { check_ptrace_parent(); }
TEST_F(HostileCuda, NoNetworkNotEvenLoopback) { check_tcp_connect(); }
TEST_F(HostileCuda, NothingIsWrittenOutsideScratch) { check_write_outside(); }
TEST_F(HostileCuda, NoArchiveCanBeReadOrWritten) { check_archive_access(); }
TEST_F(HostileCuda, ADoubleForkedDaemonDiesWithTheWorker) { check_setsid_daemon(); }
TEST_F(HostileCuda, AForkBombIsBoundedAndCleanedUp) { check_fork_bomb(); }
TEST_F(HostileCuda, FillingScratchFillsNothingOfTheHost) { check_fill_scratch(); }
TEST_F(HostileCuda, KillingTheParentAndItsGroupFails) { check_kill_parent(); }

}  // namespace
}  // namespace kh
