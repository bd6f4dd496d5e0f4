#include "base/jail/landlock_ruleset.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "base/jail/detail/landlock_abi.h"

namespace kh {

using namespace detail::landlock;

namespace {

std::uint64_t fs_rights(int abi) {
  std::uint64_t all = (kMakeSym << 1) - 1;  // ABI 1: EXECUTE .. MAKE_SYM
  if (abi >= 2) all |= kRefer;
  if (abi >= 3) all |= kTruncate;
  if (abi >= 5) all |= kIoctlDev;
  return all;
}

void add(detail::JailPlan& plan, const std::filesystem::path& path, std::uint64_t access) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return;
  const bool directory = S_ISDIR(info.st_mode);
  // A rule on a file may grant only the rights that apply to files.
  const std::uint64_t granted = (directory ? access : access & kFileRights) & plan.landlock_handled_fs;
  if (granted == 0) return;
  plan.landlock_rules.push_back({path.string(), granted, directory});
}

}  // namespace

int landlock_abi() {
  static const int abi = [] {
    const long v = ::syscall(kCreateRulesetSyscall, nullptr, 0, kCreateRulesetVersion);
    return v < 0 ? 0 : static_cast<int>(v);
  }();
  return abi;
}

void plan_landlock(detail::JailPlan& plan, const LandlockPaths& paths, int abi) {
  plan.landlock_abi = abi;
  plan.landlock_rules.clear();
  if (abi <= 0) return;
  plan.landlock_handled_fs = fs_rights(abi);
  plan.landlock_handled_net = abi >= 4 ? kNetBindTcp | kNetConnectTcp : 0;
  plan.landlock_scoped = abi >= 6 ? kScopeAbstractUnixSocket | kScopeSignal : 0;
  for (const auto& p : paths.read_only) add(plan, p, kExecute | kReadFile | kReadDir);
  for (const auto& p : paths.devices) add(plan, p, kReadFile | kWriteFile | kReadDir | kTruncate | kIoctlDev);
  for (const auto& p : paths.proc) add(plan, p, kReadFile | kWriteFile | kReadDir);
  for (const auto& p : paths.writable) add(plan, p, fs_rights(abi));
}

}  // namespace kh
