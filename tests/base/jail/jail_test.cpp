// The jail itself, with /bin/sh as the jailed program: what it sees, where it may write,
// what it inherits, and that nothing it starts outlives it. Each test needs what the
// machine allows (namespaces); where it refuses them, the test says which and skips.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "base/child_process.h"
#include "base/jail/isolation_probe.h"
#include "base/process_runner.h"
#include "base/process_tree.h"
#include "error/error.h"
#include "support/temp_dir.h"

namespace kh {
namespace {

using namespace std::chrono_literals;

#define KH_REQUIRE_NAMESPACES()                                                                         \
  do {                                                                                                  \
    if (!machine_support().namespaces)                                                                  \
      GTEST_SKIP() << "this machine refuses the jail's namespaces: " << machine_support().notes.back(); \
  } while (0)

std::string token() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(rd());
}

ProcessRun jailed(const std::string& script, const std::filesystem::path& scratch,
                  SandboxMode mode = SandboxMode::best, bool namespaces = true) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.cwd = scratch;
  spec.jail = JailSpec{};
  spec.jail->mode = mode;
  spec.jail->allow_namespaces = namespaces;
  spec.jail->scratch = scratch;
  spec.jail->scratch_bytes = 8u << 20;
  RunOptions options;
  options.timeout = 30s;
  return run_process(std::move(spec), options);
}

// Whether a process whose command line holds `marker` is running.
bool process_with(const std::string& marker) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), {});
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(marker) != std::string::npos && cmdline.find("/bin/sh -c") == std::string::npos)
      return true;
  }
  return false;
}

TEST(Jail, ThisMachineGivesTheFullJail) {
  KH_REQUIRE_NAMESPACES();
  test::TempDir dir;
  const ProcessRun run = jailed("echo $$; cat /proc/sys/kernel/hostname", dir.path());
  EXPECT_EQ(run.isolation.level, IsolationLevel::namespaces) << run.isolation.summary();
  EXPECT_TRUE(run.isolation.private_root);
  EXPECT_EQ(run.isolation.namespaces.size(), 6u);
  // The shell is the second process of its PID namespace (the jail's init is the first).
  EXPECT_EQ(run.out, "2\nkharness-jail\n") << run.out;
}

TEST(Jail, HidesTheHostsFilesAndShowsTheSystem) {
  KH_REQUIRE_NAMESPACES();
  test::TempDir dir;
  test::TempDir secret_dir;
  const auto secret = secret_dir.write("secret.txt", "kh-secret-" + token());
  const ProcessRun run = jailed("cat '" + secret.string() +
                                    "' 2>/dev/null || echo hidden; test -x /usr/bin/env && echo system; "
                                    "ls /root 2>/dev/null | wc -l; ls /proc | grep -c '^[0-9]'",
                                dir.path());
  EXPECT_EQ(run.exit_code(), 0) << run.out;
  EXPECT_EQ(run.out.find("kh-secret-"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.rfind("hidden\nsystem\n0\n", 0), 0u) << run.out;
  // Only the jail's own processes: its init, the shell and the pipeline.
  const std::string last = run.out.substr(run.out.rfind('\n', run.out.size() - 2) + 1);
  EXPECT_LE(std::stoi(last), 8) << run.out;
}

TEST(Jail, WritesOnlyToItsScratchAndNoneOfItReachesTheHost) {
  KH_REQUIRE_NAMESPACES();
  test::TempDir dir;
  test::TempDir outside;
  const ProcessRun run = jailed(
      "echo ok > mine && cat mine; touch /usr/kh-x 2>/dev/null || echo usr-refused; "
      "touch / 2>/dev/null; touch /kh-x 2>/dev/null || echo root-refused; "
      "touch '" +
          (outside.path() / "escaped").string() + "' 2>/dev/null || echo outside-refused",
      dir.path());
  EXPECT_EQ(run.out, "ok\nusr-refused\nroot-refused\noutside-refused\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "mine")) << "the scratch is private, in memory";
  EXPECT_FALSE(std::filesystem::exists(outside.path() / "escaped"));
}

TEST(Jail, ScratchHasAHardSize) {
  KH_REQUIRE_NAMESPACES();
  test::TempDir dir;
  const ProcessRun run =
      jailed("head -c 64000000 /dev/zero > big 2>/dev/null; echo $?; wc -c < big", dir.path());
  // 8 MiB of scratch: the write fails there, not at 64 MB on the host's disk.
  EXPECT_EQ(run.out.rfind("1\n", 0), 0u) << run.out;
  EXPECT_LE(std::stoll(run.out.substr(2)), 8ll << 20) << run.out;
}

TEST(Jail, EnvironmentIsAnAllowList) {
  test::TempDir dir;
  ::setenv("OPENAI_API_KEY", "sk-kh-jail-test", 1);
  ::setenv("KH_JAIL_TEST_PLAIN", "plain", 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  const ProcessRun run = jailed("env", dir.path());
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("KH_JAIL_TEST_PLAIN");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(run.out.find("sk-kh-jail-test"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("KH_JAIL_TEST_PLAIN"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("CUDA_VISIBLE_DEVICES=0"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("HOME=" + dir.path().string()), std::string::npos) << run.out;
}

TEST(Jail, NothingItStartsOutlivesIt) {
  KH_REQUIRE_NAMESPACES();
  test::TempDir dir;
  const std::string marker = "9" + token().substr(0, 8);
  // A daemon: its own session, reparented away from the shell, which exits at once.
  const ProcessRun run =
      jailed("setsid sh -c 'sleep " + marker + "' >/dev/null 2>&1 < /dev/null & echo started", dir.path());
  EXPECT_EQ(run.out, "started\n");
  bool alive = true;
  for (int i = 0; i < 100 && alive; ++i) {
    alive = process_with("sleep " + marker);
    if (alive) std::this_thread::sleep_for(20ms);
  }
  EXPECT_FALSE(alive) << "a daemon outlived its jail";
}

TEST(Jail, RefusesNamespacesAndTracingInside) {
  test::TempDir dir;
  const ProcessRun run = jailed("unshare -U true 2>/dev/null && echo unshared || echo refused", dir.path());
  if (!run.isolation.seccomp) GTEST_SKIP() << "no seccomp filter here: " << run.isolation.summary();
  EXPECT_EQ(run.out, "refused\n");
}

// What a machine that refuses namespaces still gets (a CI container, gVisor without user
// namespaces): the same program, restricted.
TEST(Jail, WithoutNamespacesTheRestStillHolds) {
  test::TempDir dir;
  test::TempDir outside;
  ::setenv("OPENAI_API_KEY", "sk-kh-jail-test", 1);
  const ProcessRun run =
      jailed("env | grep -c sk-kh-jail-test; echo ok > mine && cat mine; touch '" +
                 (outside.path() / "escaped").string() +
                 "' 2>/dev/null || echo outside-refused; unshare -U true 2>/dev/null || echo "
                 "unshare-refused",
             dir.path(), SandboxMode::best, false);
  ::unsetenv("OPENAI_API_KEY");
  EXPECT_EQ(run.isolation.level, IsolationLevel::restricted) << run.isolation.summary();
  EXPECT_TRUE(run.isolation.namespaces.empty());
  EXPECT_EQ(run.out.rfind("0\nok\n", 0), 0u) << run.out;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "mine"))
      << "without a mount namespace scratch is the host folder";
  if (run.isolation.landlock_abi > 0) {
    EXPECT_NE(run.out.find("outside-refused"), std::string::npos) << run.out;
    EXPECT_FALSE(std::filesystem::exists(outside.path() / "escaped"));
  }
  if (run.isolation.seccomp) {
    EXPECT_NE(run.out.find("unshare-refused"), std::string::npos) << run.out;
  }
}

// Nothing a jailed program runs holds a capability, whatever its uid (root, without
// namespaces).
TEST(Jail, NoCapabilitiesAtAnyLevel) {
  test::TempDir dir;
  for (const bool namespaces : {true, false}) {
    const ProcessRun run = jailed("grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status", dir.path(),
                                  SandboxMode::best, namespaces);
    EXPECT_EQ(run.out,
              "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
              "CapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n")
        << run.isolation.summary();
  }
}

// The program in the jail is the init's child: kharness asks which process that is (to tell
// the worker's own GPU context from a helper's) as soon as the program runs.
TEST(Jail, TheProgramIsTheInitsOneChildOrTheProcessItself) {
  test::TempDir dir;
  for (const bool namespaces : {true, false}) {
    if (namespaces && !machine_support().namespaces) continue;
    ProcessSpec spec;
    spec.argv = {"/bin/sleep", "30"};
    spec.cwd = dir.path();
    spec.jail = JailSpec{};
    spec.jail->allow_namespaces = namespaces;
    spec.jail->scratch = dir.path();
    spec.jail->scratch_bytes = 8u << 20;
    ChildProcess child = ChildProcess::spawn(spec);
    std::ifstream comm("/proc/" + std::to_string(child.program_pid()) + "/comm");
    std::string name;
    std::getline(comm, name);
    EXPECT_EQ(name, "sleep") << child.isolation().summary();
    if (namespaces) {
      EXPECT_NE(child.program_pid(), child.pid());
      EXPECT_EQ(child_processes(child.pid()), std::vector<pid_t>{child.program_pid()});
    } else {
      EXPECT_EQ(child.program_pid(), child.pid());
    }
    child.kill();
  }
}

TEST(Jail, OffMeansNoJail) {
  test::TempDir dir;
  const ProcessRun run = jailed("echo $$", dir.path(), SandboxMode::off);
  EXPECT_EQ(run.isolation.level, IsolationLevel::none);
  EXPECT_NE(run.out, "2\n");
}

TEST(Jail, StrictRefusesWhatTheMachineCannotGive) {
  if (machine_support().namespaces) {
    EXPECT_NO_THROW((void)jail_ladder(SandboxMode::strict));
  } else {
    EXPECT_THROW((void)jail_ladder(SandboxMode::strict), Error);
  }
}

}  // namespace
}  // namespace kh
