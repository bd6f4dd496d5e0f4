// Hostile C++ candidates against the worker's jail (docs/worker.md): each attack must
// fail, the verdict must say so, and the orchestrator must live on. Where the machine
// refuses the namespaces a protection rests on, the test says which and skips.
#include <gtest/gtest.h>

#include "hostile_fixture.h"

namespace kh {
namespace {

class HostileCpu : public test::HostileSuite {
 protected:
  std::string language() const override { return "cpp"; }
  EvalOptions base_options() const override {
    EvalOptions o;
    o.backend = "cpu";
    o.cache_dir = *scratch_ / "cache";
    return o;
  }
};

TEST_F(HostileCpu, SecretsInTheEnvironmentDoNotReachTheWorker) { check_env_secret(); }
TEST_F(HostileCpu, TheParentsEnvironmentCannotBeRead) { check_parent_environ(); }
TEST_F(HostileCpu, TheParentsMemoryCannotBeRead) { check_parent_mem(); }
TEST_F(HostileCpu, TheParentCannotBeTraced) { check_ptrace_parent(); }
TEST_F(HostileCpu, NoNetworkNotEvenLoopback) { check_tcp_connect(); }
TEST_F(HostileCpu, NothingIsWrittenOutsideScratch) { check_write_outside(); }
TEST_F(HostileCpu, NoArchiveCanBeReadOrWritten) { check_archive_access(); }
TEST_F(HostileCpu, ADoubleForkedDaemonDiesWithTheWorker) { check_setsid_daemon(); }
TEST_F(HostileCpu, AForkBombIsBoundedAndCleanedUp) { check_fork_bomb(); }
TEST_F(HostileCpu, FillingScratchFillsNothingOfTheHost) { check_fill_scratch(); }
TEST_F(HostileCpu, KillingTheParentAndItsGroupFails) { check_kill_parent(); }

}  // namespace
}  // namespace kh
