// SandboxMode: how strongly this kharness process jails the children that run
// candidate code (`--sandbox strict|best|off`).
#pragma once

#include <optional>
#include <string_view>

namespace kh {

enum class SandboxMode {
  strict,    // the full jail (namespaces, private root, seccomp) or refuse to run
  best,      // the strongest jail this machine allows (the default)
  off,       // no jail: the child runs with kharness's own rights
  profiled,  // under a profiler (ncu): no namespaces, the user kept (GPU counters need
             // it), perf_event_open allowed, the environment minus secrets
};

[[nodiscard]] std::string_view sandbox_mode_name(SandboxMode mode) noexcept;
// "strict", "best", "off", "profiled"; nullopt for anything else.
[[nodiscard]] std::optional<SandboxMode> parse_sandbox_mode(std::string_view text) noexcept;

// The mode of this process (best until set). The CLI sets it once from --sandbox.
[[nodiscard]] SandboxMode sandbox_mode() noexcept;
void set_sandbox_mode(SandboxMode mode) noexcept;

}  // namespace kh
