#include "base/jail/sandbox_mode.h"

#include <atomic>

namespace kh {

namespace {
std::atomic<SandboxMode> g_mode{SandboxMode::best};
}  // namespace

std::string_view sandbox_mode_name(SandboxMode mode) noexcept {
  switch (mode) {
    case SandboxMode::strict:
      return "strict";
    case SandboxMode::best:
      return "best";
    case SandboxMode::off:
      return "off";
    case SandboxMode::profiled:
      return "profiled";
  }
  return "best";
}

std::optional<SandboxMode> parse_sandbox_mode(std::string_view text) noexcept {
  for (SandboxMode m : {SandboxMode::strict, SandboxMode::best, SandboxMode::off, SandboxMode::profiled})
    if (sandbox_mode_name(m) == text) return m;
  return std::nullopt;
}

SandboxMode sandbox_mode() noexcept { return g_mode.load(); }

void set_sandbox_mode(SandboxMode mode) noexcept { g_mode.store(mode); }

}  // namespace kh
