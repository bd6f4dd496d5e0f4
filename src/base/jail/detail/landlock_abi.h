// Landlock's kernel interface, spelled out: Debian 12's <linux/landlock.h> predates ABI
// 3-6 (truncate, TCP, ioctl on devices, scoping), and its glibc has no wrappers.
// Values from the kernel's include/uapi/linux/landlock.h.
#pragma once

#include <cstdint>

namespace kh::detail::landlock {

inline constexpr long kCreateRulesetSyscall = 444;  // the same number on every architecture
inline constexpr long kAddRuleSyscall = 445;
inline constexpr long kRestrictSelfSyscall = 446;
inline constexpr std::uint32_t kCreateRulesetVersion = 1u << 0;
inline constexpr int kRulePathBeneath = 1;

inline constexpr std::uint64_t kExecute = 1ull << 0;
inline constexpr std::uint64_t kWriteFile = 1ull << 1;
inline constexpr std::uint64_t kReadFile = 1ull << 2;
inline constexpr std::uint64_t kReadDir = 1ull << 3;
inline constexpr std::uint64_t kMakeSym = 1ull << 12;
inline constexpr std::uint64_t kRefer = 1ull << 13;     // ABI 2
inline constexpr std::uint64_t kTruncate = 1ull << 14;  // ABI 3
inline constexpr std::uint64_t kIoctlDev = 1ull << 15;  // ABI 5
inline constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

inline constexpr std::uint64_t kNetBindTcp = 1ull << 0;  // ABI 4
inline constexpr std::uint64_t kNetConnectTcp = 1ull << 1;

inline constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0;  // ABI 6
inline constexpr std::uint64_t kScopeSignal = 1ull << 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

// The size of RulesetAttr a kernel of `abi` accepts (it rejects unknown non-zero tails).
inline constexpr unsigned long ruleset_attr_size(int abi) { return abi >= 6 ? 24 : abi >= 4 ? 16 : 8; }

}  // namespace kh::detail::landlock
