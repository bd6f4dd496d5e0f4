#include "cli/sandbox_option.h"

#include <fmt/format.h>
#include <sys/prctl.h>

#include "base/jail/isolation_probe.h"
#include "base/jail/sandbox_mode.h"
#include "error/error.h"
#include "eval/eval_invocation.h"

namespace kh::cli {

void add_sandbox_option(CLI::App* cmd, std::string& value) {
  cmd->add_option(eval_flag::kSandbox, value,
                  "Jail for the processes that build and run candidate code: strict (the full jail or "
                  "refuse to run), best (the strongest this machine allows), off")
      ->check(CLI::IsMember({"strict", "best", "off", "profiled"}))
      ->default_val("best");
}

void apply_sandbox_option(const std::string& value, std::string_view command) {
  const auto mode = parse_sandbox_mode(value);
  if (!mode) throw Error(Location{"", 0, "--sandbox"}, "'" + value + "' is not strict, best or off");
  set_sandbox_mode(*mode);
  const Isolation iso = expected_isolation(*mode);  // throws for an unmet strict
  fmt::print(stderr, "kharness {}: sandbox {}: {}\n", command, value, iso.summary());
  for (const std::string& note : iso.notes) fmt::print(stderr, "  note: {}\n", note);
  if (*mode != SandboxMode::off) ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

}  // namespace kh::cli
