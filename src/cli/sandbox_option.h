// --sandbox strict|best|off: how the children that run candidate code are jailed
// (docs/worker.md), for the commands that start them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace kh::cli {

void add_sandbox_option(CLI::App* cmd, std::string& value);

// Sets this process's SandboxMode from `value` and prints, on stderr, the isolation its
// jailed children will get ("kharness eval: sandbox best: namespaces (user mount pid ...)").
// kh::Error when strict is asked and this machine cannot give the full jail. Unless off,
// kharness itself becomes non-dumpable: no process of its user can read its memory or
// environment through /proc or trace it without CAP_SYS_PTRACE.
void apply_sandbox_option(const std::string& value, std::string_view command);

}  // namespace kh::cli
