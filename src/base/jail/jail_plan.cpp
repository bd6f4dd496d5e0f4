#include "base/jail/jail_plan.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>

#include "base/jail/landlock_ruleset.h"
#include "base/jail/mount_table.h"
#include "base/jail/seccomp_filter.h"
#include "base/jail/system_paths.h"

namespace kh {

namespace {

namespace fs = std::filesystem;
using detail::MountStep;

constexpr std::uint64_t kPrivateTmpBytes = 64ull << 20;
constexpr const char* kDeviceFiles[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
// Where the kernel's own file systems come from in a jail: never bound from the host's
// mount tree (a recursive /sys would bring cgroupfs along, writable).
constexpr const char* kSpecialRoots[] = {"/proc", "/dev", "/sys"};

bool under(const fs::path& p, const fs::path& dir) {
  const std::string d = dir.string();
  const std::string s = p.string();
  return d == "/" || s == d || (s.size() > d.size() && s.compare(0, d.size(), d) == 0 && s[d.size()] == '/');
}

bool special(const fs::path& p) {
  return std::any_of(std::begin(kSpecialRoots), std::end(kSpecialRoots),
                     [&](const char* r) { return under(p, r); });
}

// One thing to place at `target` in the new root.
struct Item {
  MountStep::Kind kind;
  fs::path target;
  std::string source;  // host path, link text or tmpfs options
  bool read_only = false;
  bool is_file = false;
};

// Collects what the root holds, then orders it: parents before children, so that a
// tmpfs is mounted before anything is placed inside it.
class RootBuilder {
 public:
  // A host file or folder at the same path. A final symlink becomes a link to the same
  // text, with its target added as well; a path reached through symlinked folders is
  // bound both where they lead and where the program names it (a build folder that is a
  // link to another checkout); a path a bound folder shows needs nothing of its own.
  void add_host_path(const fs::path& requested, bool read_only) {
    std::error_code ec;
    const fs::path p = fs::absolute(requested, ec).lexically_normal();
    // The jail's own /tmp replaces the host's: what it must show from there is bound
    // path by path.
    if (ec || special(p) || p == "/tmp") return;
    struct stat link_info {};
    if (::lstat(p.c_str(), &link_info) != 0) return;
    const fs::path parent_real = fs::weakly_canonical(p.parent_path(), ec);
    if (S_ISLNK(link_info.st_mode) && !ec && parent_real == p.parent_path() && !covered(p)) {
      std::error_code link_ec;
      const fs::path text = fs::read_symlink(p, link_ec);
      if (!link_ec) items_[p.string()] = Item{MountStep::Kind::symlink, p, text.string(), false, false};
    }
    const fs::path real = fs::canonical(p, ec);
    if (ec || special(real)) return;
    struct stat info {};
    if (::stat(real.c_str(), &info) != 0) return;
    const bool is_file = S_ISREG(info.st_mode) || S_ISCHR(info.st_mode);
    binds_.push_back({real, real, read_only, is_file});
    if (real != p && !S_ISLNK(link_info.st_mode) && !behind_recreated_link(p))
      binds_.push_back({real, p, read_only, is_file});
  }

  void add(Item item) { items_[item.target.string()] = std::move(item); }

  // Binds that a broader one already shows (folders are bound with what is mounted
  // beneath them) are dropped, unless they are to be writable under a read-only one.
  void resolve_binds() {
    std::sort(binds_.begin(), binds_.end(), [](const Bind& a, const Bind& b) { return a.target < b.target; });
    std::vector<Bind> kept;
    for (const Bind& b : binds_) {
      const bool shown = std::any_of(kept.begin(), kept.end(), [&](const Bind& k) {
        return !k.is_file && under(b.target, k.target) && (k.read_only == b.read_only || !k.read_only);
      });
      if (!shown) kept.push_back(b);
    }
    for (const Bind& b : kept) {
      items_[b.target.string()] =
          Item{MountStep::Kind::bind, b.target, b.source.string(), b.read_only, b.is_file};
      if (!b.is_file && b.read_only) remount_beneath(b.source, b.target);
    }
  }

  // The mounts beneath a read-only folder bind (of `source` at `target`), each made
  // read-only where the kernel cannot do it recursively.
  void remount_beneath(const fs::path& source, const fs::path& target) {
    for (const fs::path& m : mount_points_beneath(mounts_, source)) {
      const fs::path at = target / m.lexically_relative(source);
      if (items_.count(at.string()) == 0)
        items_[at.string()] = Item{MountStep::Kind::remount_submount, at, "", true, false};
    }
  }

  [[nodiscard]] std::vector<MountStep> steps() const {
    std::vector<MountStep> out;
    std::set<std::string> made{"/"};
    std::vector<fs::path> bound_dirs;
    for (const auto& [key, item] : items_) {  // std::map: parents first
      make_parents(item.target, made, bound_dirs, out);
      emit(item, out);
      made.insert(key);
      if (item.kind == MountStep::Kind::bind && !item.is_file) bound_dirs.push_back(item.target);
    }
    return out;
  }

 private:
  struct Bind {
    fs::path source;  // on the host
    fs::path target;  // in the jail
    bool read_only;
    bool is_file;
  };

  // Whether the jail recreates a symlink on the way to `p` (/lib -> usr/lib), so that `p`
  // resolves there as it does on the host.
  [[nodiscard]] bool behind_recreated_link(const fs::path& p) const {
    for (fs::path a = p.parent_path(); a != a.parent_path(); a = a.parent_path()) {
      const auto it = items_.find(a.string());
      if (it != items_.end() && it->second.kind == MountStep::Kind::symlink) return true;
    }
    return false;
  }

  [[nodiscard]] bool covered(const fs::path& p) const {
    return std::any_of(binds_.begin(), binds_.end(),
                       [&](const Bind& b) { return !b.is_file && under(p, b.target); });
  }

  static std::string in_new_root(const fs::path& p) { return "/newroot" + p.string(); }

  static void make_parents(const fs::path& target, std::set<std::string>& made,
                           const std::vector<fs::path>& bound, std::vector<MountStep>& out) {
    fs::path dir;
    for (const auto& part : target.parent_path()) {
      dir /= part;
      const std::string d = dir.string();
      if (made.count(d) != 0) continue;
      made.insert(d);
      // Inside a bound folder the path exists already (and cannot be created: read-only).
      if (std::any_of(bound.begin(), bound.end(), [&](const fs::path& b) { return under(dir, b); })) continue;
      out.push_back({MountStep::Kind::dir, "", in_new_root(dir), false, "mkdir " + d});
    }
  }

  static void emit(const Item& item, std::vector<MountStep>& out) {
    const std::string target = in_new_root(item.target);
    const std::string shown = item.target.string();
    switch (item.kind) {
      case MountStep::Kind::symlink:
        out.push_back({MountStep::Kind::symlink, item.source, target, false, "symlink " + shown});
        return;
      case MountStep::Kind::bind:
        out.push_back({item.is_file ? MountStep::Kind::file : MountStep::Kind::dir, "", target, false,
                       "create the mount point " + shown});
        out.push_back({MountStep::Kind::bind, "/oldroot" + item.source, target, item.read_only,
                       fmt::format("bind {}{}", shown, item.read_only ? " read-only" : "")});
        return;
      case MountStep::Kind::tmpfs:
      case MountStep::Kind::proc:
        out.push_back({MountStep::Kind::dir, "", target, false, "mkdir " + shown});
        out.push_back(
            {item.kind, item.source, target, false,
             fmt::format("mount {} on {}", item.kind == MountStep::Kind::proc ? "proc" : "tmpfs", shown)});
        return;
      case MountStep::Kind::remount_submount:
        out.push_back({item.kind, "", target, true, "remount " + shown + " (beneath a bind) read-only"});
        return;
      default:
        out.push_back({item.kind, item.source, target, item.read_only, shown});
    }
  }

  std::vector<Bind> binds_;
  std::map<std::string, Item> items_;
  std::vector<fs::path> mounts_ = mount_points();
};

std::vector<fs::path> read_only_paths(const JailSpec& spec) {
  std::vector<fs::path> out = system_read_only_paths();
  out.insert(out.end(), spec.read_only.begin(), spec.read_only.end());
  return out;
}

std::vector<MountStep> root_steps(const JailSpec& spec, uid_t uid, gid_t gid) {
  RootBuilder root;
  for (const fs::path& p : read_only_paths(spec)) root.add_host_path(p, true);
  for (const fs::path& p : spec.writable) root.add_host_path(p, false);
  if (!spec.scratch_bytes) root.add_host_path(spec.scratch, false);
  root.resolve_binds();

  root.add({MountStep::Kind::proc, "/proc", "", false, false});
  root.add({MountStep::Kind::bind, "/sys", "/sys", true, false});
  root.remount_beneath("/sys", "/sys");
  root.add({MountStep::Kind::tmpfs, "/dev", "mode=0755,size=1m", false, false});
  for (const char* device : kDeviceFiles) root.add({MountStep::Kind::bind, device, device, false, true});
  if (spec.gpu) {
    for (const fs::path& device : gpu_device_paths())
      root.add({MountStep::Kind::bind, device, device.string(), false, !fs::is_directory(device)});
  }
  root.add({MountStep::Kind::tmpfs, "/dev/shm", "mode=1777,size=64m", false, false});
  root.add({MountStep::Kind::symlink, "/dev/fd", "/proc/self/fd", false, false});
  root.add({MountStep::Kind::symlink, "/dev/stdin", "/proc/self/fd/0", false, false});
  root.add({MountStep::Kind::symlink, "/dev/stdout", "/proc/self/fd/1", false, false});
  root.add({MountStep::Kind::symlink, "/dev/stderr", "/proc/self/fd/2", false, false});
  root.add(
      {MountStep::Kind::tmpfs, "/tmp", fmt::format("mode=1777,size={}", kPrivateTmpBytes), false, false});
  if (spec.scratch_bytes) {
    root.add({MountStep::Kind::tmpfs, fs::absolute(spec.scratch).lexically_normal(),
              fmt::format("mode=0700,size={},nr_inodes=65536,uid={},gid={}", *spec.scratch_bytes, uid, gid),
              false, false});
  }
  std::vector<MountStep> steps = root.steps();
  steps.push_back({MountStep::Kind::remount_read_only, "", "/newroot/dev", true, "remount /dev read-only"});
  return steps;
}

LandlockPaths landlock_paths(const JailSpec& spec, bool namespaces) {
  LandlockPaths paths;
  if (namespaces) {
    paths.read_only = {"/"};  // the jail's root holds only what the spec shows
    paths.writable = {"/tmp", "/dev/shm"};
  } else {
    paths.read_only = read_only_paths(spec);
    paths.writable = {"/dev/shm"};  // POSIX shared memory (the CUDA driver's among it)
  }
  paths.writable.push_back(spec.scratch);
  paths.writable.insert(paths.writable.end(), spec.writable.begin(), spec.writable.end());
  paths.devices = {"/dev"};
  paths.proc = {"/proc"};
  if (!namespaces) paths.read_only.emplace_back("/sys");
  return paths;
}

// KHARNESS_JAIL_SKIP=seccomp,landlock,environment: layers to leave out, to find which
// one a device's driver does not start under (docs/worker.md). Always said in the
// isolation the trace records.
std::string skipped_layers() {
  const char* value = std::getenv("KHARNESS_JAIL_SKIP");
  return value == nullptr ? std::string() : std::string(value);
}

bool skips(const std::string& skipped, std::string_view layer) {
  return skipped.find(layer) != std::string::npos;
}

}  // namespace

detail::JailPlan make_jail_plan(const JailSpec& spec, const JailChoice& choice) {
  detail::JailPlan plan;
  const bool profiled = choice.mode == SandboxMode::profiled;
  const bool namespaces = choice.level == IsolationLevel::namespaces && !profiled;
  Isolation& iso = plan.isolation;
  iso.level = profiled ? IsolationLevel::restricted : choice.level;
  iso.mode = std::string(sandbox_mode_name(choice.mode));
  iso.environment_allow_list = !profiled;

  const uid_t own_uid = ::geteuid();
  const gid_t own_gid = ::getegid();
  plan.uid = choice.unprivileged_user ? kJailUid : own_uid;
  plan.gid = choice.unprivileged_user ? kJailGid : own_gid;
  if (choice.unprivileged_user)
    iso.user = fmt::format("{} (kharness runs as root)", kJailUid);
  else if (profiled)
    iso.user = "kharness's, with its capabilities";
  else
    iso.user = own_uid == 0 ? "root, without capabilities" : "kharness's";
  if (namespaces) {
    plan.namespaces = true;
    plan.clone_flags =
        CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET;
    iso.namespaces = {"user", "mount", "pid", "ipc", "uts", "net"};
    iso.private_root = true;
    plan.base = fs::is_directory("/tmp") ? "/tmp" : "/mnt";
    if (choice.unprivileged_user) {
      // Root stays root while it builds the jail (it can reach root-owned folders to
      // bind them); the process that execs becomes kJailUid.
      plan.uid_map = fmt::format("0 0 1\n{} {} 1\n", kJailUid, kJailUid);
      plan.gid_map = fmt::format("0 0 1\n{} {} 1\n", kJailGid, kJailGid);
      plan.deny_setgroups = false;
      plan.drop_groups = true;
      plan.change_ids = true;
    } else {
      plan.uid_map = fmt::format("{} {} 1\n", own_uid, own_uid);
      plan.gid_map = fmt::format("{} {} 1\n", own_gid, own_gid);
    }
    plan.mounts = root_steps(spec, plan.uid, plan.gid);
  } else {
    plan.change_ids = choice.unprivileged_user;
    plan.drop_groups = choice.unprivileged_user;
  }
  plan.keep_capabilities = profiled;
  const std::string skipped = skipped_layers();
  if (!skipped.empty()) iso.notes.push_back("layers left out by KHARNESS_JAIL_SKIP: " + skipped);
  if (!skips(skipped, "seccomp")) plan.seccomp = seccomp_program(SeccompPolicy{profiled});
  iso.seccomp = !plan.seccomp.empty();
  if (!profiled && !skips(skipped, "landlock"))
    plan_landlock(plan, landlock_paths(spec, namespaces), landlock_abi());
  if (skips(skipped, "environment")) iso.environment_allow_list = false;
  iso.landlock_abi = plan.landlock_abi;
  if (!iso.seccomp)
    iso.notes.emplace_back("no seccomp filter (kharness built without libseccomp, or the kernel lacks it)");
  if (!profiled && plan.landlock_abi == 0) iso.notes.emplace_back("no Landlock in this kernel");
  if (profiled)
    iso.notes.emplace_back(
        "under a profiler: no namespaces, kharness's user and rights kept, environment minus secrets");
  return plan;
}

}  // namespace kh
