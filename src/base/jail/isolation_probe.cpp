#include "base/jail/isolation_probe.h"

#include <fmt/format.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "base/detail/child_start.h"
#include "error/error.h"

namespace kh {

namespace {

// A folder for the probe's scratch, removed afterwards.
class ProbeDir {
 public:
  ProbeDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kharness-jail-probe-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ProbeDir(const ProbeDir&) = delete;  // one owner removes it
  ProbeDir& operator=(const ProbeDir&) = delete;
  ~ProbeDir() {
    std::error_code ignored;  // a leftover empty folder in /tmp is not worth a failure
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

// Builds the jail of `choice` around a child that exits 0 where it would exec; empty
// when it did, else why not.
std::string try_jail(const JailChoice& choice) {
  ProbeDir dir;
  if (dir.path().empty()) return "cannot create a folder for the probe";
  ProcessSpec spec;
  spec.argv = {"kharness-jail-probe"};
  spec.role = "jail probe";
  spec.cwd = dir.path();
  spec.jail = JailSpec{};
  spec.jail->scratch = dir.path();
  spec.jail->scratch_bytes = 1u << 20;
  detail::JailPlan plan = make_jail_plan(*spec.jail, choice);
  plan.probe = true;
  detail::StartAttempt attempt;
  try {
    attempt = detail::start_child(spec, &plan);
  } catch (const Error& e) {
    return e.what();
  }
  if (!attempt.child) return attempt.jail_failure;
  int own = 0;
  while (::waitpid(attempt.child->pid, &own, 0) < 0 && errno == EINTR) {
  }
  int worker = own;
  pollfd p{attempt.child->status.get(), POLLIN, 0};
  if (::poll(&p, 1, 0) == 1 && ::read(p.fd, &worker, sizeof worker) != static_cast<ssize_t>(sizeof worker))
    worker = own;
  if (WIFEXITED(worker) && WEXITSTATUS(worker) == 0) return {};
  return fmt::format("the probe ended with wait status {:#x}", worker);
}

MachineSupport probe() {
  MachineSupport m;
  const bool root = ::geteuid() == 0;
  if (root) {
    const std::string why = try_jail({IsolationLevel::namespaces, SandboxMode::best, true});
    if (why.empty()) return {true, true, {}};
    m.notes.push_back("cannot run root's jailed children as an unprivileged user: " + why);
  }
  const std::string why = try_jail({IsolationLevel::namespaces, SandboxMode::best, false});
  if (why.empty()) {
    m.namespaces = true;
    return m;
  }
  m.notes.push_back("no namespaces: " + why);
  return m;
}

}  // namespace

const MachineSupport& machine_support() {
  static const MachineSupport support = probe();
  return support;
}

JailLadder jail_ladder(SandboxMode mode) {
  JailLadder ladder;
  if (mode == SandboxMode::off) return ladder;
  if (mode == SandboxMode::profiled) {
    ladder.choices.push_back({IsolationLevel::restricted, mode, false});
    return ladder;
  }
  const MachineSupport& m = machine_support();
  ladder.notes = m.notes;
  if (m.namespaces) ladder.choices.push_back({IsolationLevel::namespaces, mode, m.unprivileged_user});
  if (mode == SandboxMode::strict) {
    if (ladder.choices.empty())
      throw Error(
          fmt::format("--sandbox strict cannot be met on this machine: {}", fmt::join(m.notes, "; ")));
    return ladder;
  }
  // Without namespaces root keeps its uid (capabilities dropped): as 65534 it could not
  // reach the binary, its scratch or its inputs under root's private folders.
  ladder.choices.push_back({IsolationLevel::restricted, mode, false});
  return ladder;
}

Isolation expected_isolation(SandboxMode mode) {
  if (mode == SandboxMode::off) {
    Isolation none;
    none.mode = "off";
    return none;
  }
  const JailLadder ladder = jail_ladder(mode);
  JailSpec spec;
  spec.scratch = std::filesystem::temp_directory_path();
  Isolation iso = make_jail_plan(spec, ladder.choices.front()).isolation;
  iso.notes.insert(iso.notes.begin(), ladder.notes.begin(), ladder.notes.end());
  return iso;
}

}  // namespace kh
