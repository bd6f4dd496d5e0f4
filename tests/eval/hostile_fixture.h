// Shared by the hostile CPU and CUDA suites: a hostile candidate per attack
// (solutions/hostile/attacks.h) built with this run's token, secret, port and paths;
// the bait it goes for (API keys in the orchestrator's environment, a canary on its
// heap, a loopback listener, an archive, folders outside the worker's scratch); and
// what must hold after it ran.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "base/jail/isolation_probe.h"
#include "base/jail/landlock_ruleset.h"
#include "base/jail/seccomp_filter.h"
#include "base/process_runner.h"
#include "end_to_end_fixture.h"
#include "trace/json_io.h"

namespace kh::test {

// The protections these attacks meet come from the jail's namespaces, some also from
// what a jail without them keeps (seccomp, Landlock); where the machine refuses both the
// test says which and skips.
#define KH_REQUIRE_JAIL_OR(what, without_namespaces)                                            \
  do {                                                                                          \
    if (!::kh::machine_support().namespaces && !(without_namespaces))                           \
      GTEST_SKIP() << "needs the jail's " << what                                               \
                   << ", which this machine refuses: " << ::kh::machine_support().notes.back(); \
  } while (0)
#define KH_REQUIRE_JAIL(what) KH_REQUIRE_JAIL_OR(what, false)

struct HostileBait {
  std::string token;
  std::string secret;
  std::string canary;             // lives on the orchestrator's heap for the whole suite
  std::filesystem::path root;     // everything below is inside it
  std::filesystem::path outside;  // a host folder the worker must not write
  std::filesystem::path archive;  // an archive it must not read or write
  int listener = -1;
  int port = 0;
  std::string process_name;  // what every process an attack leaves is called (comm)
};

inline std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

inline HostileBait make_bait() {
  std::random_device rd;
  HostileBait b;
  b.token = std::to_string(rd() % 90000000 + 10000000);
  b.secret = "sk-kh-hostile-secret-" + b.token;
  b.canary = "KH-CANARY-" + b.token + std::string(64, '#');
  b.process_name = "khh" + b.token;
  b.root = std::filesystem::temp_directory_path() / ("kharness-hostile-" + b.token);
  b.outside = b.root / "outside";
  b.archive = b.root / "archive";
  std::filesystem::create_directories(b.outside);
  std::filesystem::create_directories(b.archive / "blobs");
  std::ofstream(b.archive / "index.sqlite") << "SQLite format 3 (a stand-in for a real index) " << b.token;
  // The orchestrator holds the keys, as kharness does when an HTTP agent drives it.
  ::setenv("OPENAI_API_KEY", b.secret.c_str(), 1);
  ::setenv("ANTHROPIC_API_KEY", b.secret.c_str(), 1);
  ::setenv("KH_HOSTILE_TOKEN", b.token.c_str(), 1);
  b.listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (b.listener < 0 || ::bind(b.listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(b.listener, 8) != 0 ||
      ::getsockname(b.listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot open the loopback listener");
  b.port = ntohs(addr.sin_port);
  return b;
}

// The candidate for `attack`: the shared attacks, the language's entry, the gallery's
// honest kernel, with this run's fields filled in.
inline Solution hostile_solution(const HostileBait& b, const std::string& attack,
                                 const std::string& language) {
  const std::filesystem::path dir = std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions";
  const bool cuda = language == "cuda";
  const std::string entry = cuda ? "cuda_entry.cu" : "cpu_entry.cpp";
  const char* home = std::getenv("HOME");
  auto fill = [&](std::string text) {
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"@ATTACK@", attack},
                                                          {"@TOKEN@", b.token},
                                                          {"@SECRET@", b.secret},
                                                          {"@CANARY@", b.canary.substr(0, 24)},
                                                          {"@PORT@", std::to_string(b.port)},
                                                          {"@OUTSIDE@", b.outside.string()},
                                                          {"@ARCHIVE@", b.archive.string()},
                                                          {"@HOME@", home != nullptr ? home : "/root"},
                                                          {"@PNAME@", b.process_name}})
      text = replace_all(std::move(text), from, to);
    return text;
  };
  Solution s;
  s.name = "hostile_" + attack;
  s.definition = "rmsnorm_h128";
  s.spec.language = language;
  s.spec.entry_point = entry + "::rmsnorm";
  s.spec.binding = "kharness";
  s.sources.push_back({entry, fill(read_file(dir / "hostile" / entry)), {}});
  s.sources.push_back({"attacks.h", fill(read_file(dir / "hostile" / "attacks.h")), {}});
  const std::string common = cuda ? "rmsnorm_common.cuh" : "rmsnorm_common.h";
  s.sources.push_back({common, read_file(dir / (cuda ? "rmsnorm_h128_cuda" : "rmsnorm_h128") / common), {}});
  return s;
}

// Everything the candidate's workers wrote to stderr (its attacks' reports), restarts included.
inline std::string worker_stderr(const std::filesystem::path& work_dir) {
  std::string out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(work_dir / "candidate", ec))
    if (entry.path().filename().string().rfind("stderr.log", 0) == 0) out += read_file(entry.path());
  return out;
}

// The pids of the processes an attack left: called `name` (the daemon), or `sleep
// <token>` (the fork bomb's). Killed on the way, so that a failed test leaves nothing.
inline std::vector<pid_t> kill_leftovers(const std::string& name, const std::string& token) {
  std::vector<pid_t> found;
  const std::string bomb = std::string("sleep") + '\0' + token + '\0';
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry.path().filename().c_str()));
    if (pid <= 0) continue;
    std::string comm = read_file(entry.path() / "comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (comm == name || read_file(entry.path() / "cmdline") == bomb) {
      found.push_back(pid);
      ::kill(pid, SIGKILL);
    }
  }
  return found;
}

// Whether something connected to the listener.
inline bool listener_was_reached(int listener) {
  const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

inline std::uintmax_t folder_bytes(const std::filesystem::path& dir) {
  std::uintmax_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != decltype(it)();
       it.increment(ec))
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  return total;
}

}  // namespace kh::test

namespace kh::test {

// The hostile set, run the same way on either backend. Every check ends with the same
// guarantees: the orchestrator is alive (this process; for kill_parent, a `kharness
// eval` of its own), every workload has a verdict, the secret never reached the worker,
// the listener heard nothing and no process of the candidate is left.
class HostileSuite : public EndToEndSuite {
 protected:
  static void SetUpTestSuite() {
    EndToEndSuite::SetUpTestSuite();
    bait_ = new HostileBait(make_bait());
  }
  static void TearDownTestSuite() {
    ::close(bait_->listener);
    std::error_code ignored;
    std::filesystem::remove_all(bait_->root, ignored);
    delete bait_;
    EndToEndSuite::TearDownTestSuite();
  }

  virtual std::string language() const = 0;
  virtual EvalOptions base_options() const = 0;

  EvalOptions options(const std::string& attack) const {
    EvalOptions o = base_options();
    o.correctness_trials = 1;
    o.time_candidate = false;
    o.time_reference = false;
    o.speed_of_light = false;
    o.timeout = std::chrono::seconds(120);
    o.worker_executable = KHARNESS_EXECUTABLE;
    o.work_dir = *scratch_ / attack;
    return o;
  }

  struct Outcome {
    SolutionEvaluation eval;
    std::string stderr_text;
  };

  Outcome attack(const std::string& name) const {
    const EvalOptions o = options(name);
    Outcome out{evaluate(hostile_solution(*bait_, name, language()), o, 1), {}};
    out.stderr_text = worker_stderr(o.work_dir);
    EXPECT_EQ(out.eval.candidate_build.status, BuildResult::Status::ok) << out.eval.candidate_build.log;
    EXPECT_NE(out.stderr_text.find("KH-HOSTILE " + name), std::string::npos)
        << "the attack never ran: " << out.stderr_text;
    // The strongest jail this machine allows, as the trace records it.
    EXPECT_EQ(out.eval.sandbox.value("level", ""), machine_support().namespaces ? "namespaces" : "restricted")
        << out.eval.sandbox.dump();
    return out;
  }

  // The attack failed and the verdict says so: the candidate answered zeros.
  static void expect_honest_failure(const Outcome& o) {
    ASSERT_EQ(o.eval.workloads.size(), 1u);
    const WorkloadResult& w = o.eval.workloads[0];
    EXPECT_EQ(status_name(w.status), status_name(EvalStatus::incorrect_numerical)) << w.log << "\n"
                                                                                   << o.stderr_text;
  }

  void expect_nothing_escaped(const Outcome& o) const {
    EXPECT_EQ(o.stderr_text.find(bait_->secret), std::string::npos) << "the secret reached the worker";
    EXPECT_EQ(o.stderr_text.find("GOT-SECRET"), std::string::npos) << o.stderr_text;
    EXPECT_FALSE(listener_was_reached(bait_->listener)) << "the candidate reached the loopback listener";
    // SIGKILL delivery and the reaping of a namespace's last processes are asynchronous.
    std::vector<pid_t> left;
    for (int i = 0; i < 50; ++i) {
      left = kill_leftovers(bait_->process_name, bait_->token);
      if (left.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(left.empty()) << left.size() << " process(es) of the candidate outlived the evaluation";
  }

  void check_env_secret() const {
    const Outcome o = attack("env_secret");
    EXPECT_NE(o.stderr_text.find("OPENAI_API_KEY=(unset) ANTHROPIC_API_KEY=(unset)"), std::string::npos)
        << o.stderr_text;
    expect_honest_failure(o);
    expect_nothing_escaped(o);
  }

  void check_parent_environ() const {
    KH_REQUIRE_JAIL("PID namespace");
    const Outcome o = attack("parent_environ");
    expect_honest_failure(o);
    expect_nothing_escaped(o);
  }

  void check_parent_mem() const {
    KH_REQUIRE_JAIL("PID namespace");
    std::string canary_copy = bait_->canary;  // on this heap, where the attack looks
    const Outcome o = attack("parent_mem");
    EXPECT_NE(o.stderr_text.find("bytes read from other processes: 0"), std::string::npos) << o.stderr_text;
    expect_honest_failure(o);
    expect_nothing_escaped(o);
    EXPECT_FALSE(canary_copy.empty());
  }

  void check_ptrace_parent() const {
    KH_REQUIRE_JAIL_OR("PID namespace or seccomp filter", seccomp_available());
    const Outcome o = attack("ptrace_parent");
    EXPECT_NE(o.stderr_text.find("attached to 0 of"), std::string::npos) << o.stderr_text;
    expect_honest_failure(o);
    expect_nothing_escaped(o);
  }

  void check_tcp_connect() const {
    KH_REQUIRE_JAIL_OR("network namespace or seccomp filter", seccomp_available());
    const Outcome o = attack("tcp_connect");
    EXPECT_EQ(o.stderr_text.find("CONNECTED"), std::string::npos) << o.stderr_text;
    expect_honest_failure(o);
    expect_nothing_escaped(o);
  }

  void check_write_outside() const {
    KH_REQUIRE_JAIL_OR("mount namespace or Landlock", landlock_abi() > 0);
    const Outcome o = attack("write_outside");
    const std::string name = "kh-escaped-" + bait_->token;
    const char* home = std::getenv("HOME");
    for (const std::filesystem::path& dir :
         {bait_->outside, std::filesystem::path("/tmp"), std::filesystem::path("/var/tmp"),
          std::filesystem::path(home != nullptr ? home : "/root"), options("write_outside").work_dir}) {
      EXPECT_FALSE(std::filesystem::exists(dir / name)) << "the candidate wrote " << (dir / name);
      std::error_code ignored;
      std::filesystem::remove(dir / name, ignored);
    }
    expect_honest_failure(o);
    expect_nothing_escaped(o);
  }

  void check_archive_access() const {
    KH_REQUIRE_JAIL_OR("mount namespace or Landlock", landlock_abi() > 0);
    const std::string before = read_file(bait_->archive / "index.sqlite");
    const Outcome o = attack("archive_access");
    EXPECT_NE(o.stderr_text.find("bytes read 0, no write"), std::string::npos) << o.stderr_text;
    EXPECT_FALSE(std::filesystem::exists(bait_->archive / "blobs" / ("kh-evil-" + bait_->token)));
    EXPECT_EQ(read_file(bait_->archive / "index.sqlite"), before);
    expect_honest_failure(o);
    expect_nothing_escaped(o);
  }

  void check_setsid_daemon() const {
    KH_REQUIRE_JAIL("PID namespace");
    const Outcome o = attack("setsid_daemon");
    ASSERT_EQ(o.eval.workloads.size(), 1u);
    // An honest kernel that also left a daemon: the answer is right, the daemon is gone.
    EXPECT_EQ(o.eval.workloads[0].status, EvalStatus::passed) << o.eval.workloads[0].log;
    expect_nothing_escaped(o);
  }

  void check_fork_bomb() const {
    KH_REQUIRE_JAIL("user namespace (so that the process limit binds root too)");
    const Outcome o = attack("fork_bomb");
    ASSERT_EQ(o.eval.workloads.size(), 1u);
    const EvalStatus s = o.eval.workloads[0].status;
    EXPECT_TRUE(s == EvalStatus::incorrect_numerical || s == EvalStatus::runtime_error)
        << status_name(s) << ": " << o.eval.workloads[0].log << "\n"
        << o.stderr_text;
    expect_nothing_escaped(o);
  }

  void check_fill_scratch() const {
    KH_REQUIRE_JAIL("mount namespace");
    const Outcome o = attack("fill_scratch");
    // The worker's scratch on the host holds its logs only; the fill went to memory.
    EXPECT_LT(test::folder_bytes(options("fill_scratch").work_dir), std::uintmax_t{64} << 20);
    expect_honest_failure(o);
    expect_nothing_escaped(o);
  }

  // The orchestrator is a `kharness eval` of its own here, so that a kill that landed
  // would show as that process dying instead of as this test vanishing.
  void check_kill_parent() const {
    KH_REQUIRE_JAIL_OR("PID namespace or Landlock's signal scope (ABI 6)", landlock_abi() >= 6);
    const std::filesystem::path solution = bait_->root / "kill_parent.json";
    std::ofstream(solution) << write_solution(hostile_solution(*bait_, "kill_parent", language()));
    ProcessSpec spec;
    const std::string workload = ops_->workloads("rmsnorm_h128", false).at(0).uuid;
    const std::string backend = language() == "cuda" ? "cuda" : "cpu";
    spec.argv = {KHARNESS_EXECUTABLE, "eval",       "--definition",
                 "rmsnorm_h128",      "--solution", solution.string()};
    for (const std::string& arg :
         {std::string("--backend"), backend, std::string("--workload"), workload, std::string("--trials"),
          std::string("1"), std::string("--no-timing"), std::string("--json"), std::string("--operators"),
          std::string(KHARNESS_SOURCE_DIR) + "/operators"})
      spec.argv.push_back(arg);
    spec.env = {{"KHARNESS_CACHE_DIR", (bait_->root / "cache").string()}};
    RunOptions run_options;
    run_options.timeout = std::chrono::minutes(5);
    run_options.merge_output = false;
    const ProcessRun run = run_process(std::move(spec), run_options);
    EXPECT_EQ(run.status, ExitStatus::exited(1))
        << "kharness eval did not end with a verdict: " << run.status.describe() << "\n"
        << run.err;
    EXPECT_NE(run.out.find("INCORRECT_NUMERICAL"), std::string::npos) << run.out;
    const std::string level = machine_support().namespaces ? "namespaces" : "restricted";
    EXPECT_NE(run.err.find("sandbox best: " + level), std::string::npos) << run.err;
    EXPECT_EQ(kill_leftovers(bait_->process_name, bait_->token).size(), 0u);
  }

  static inline HostileBait* bait_ = nullptr;
};

}  // namespace kh::test
