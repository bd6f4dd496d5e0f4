// Runs the built kharness binary (KHARNESS_BINARY) through the shell and collects its
// exit status and output, for tests of the command line.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace kh::cli_test {

struct CommandResult {
  int status = -1;
  std::string out;
};

enum class Stderr { merged, dropped };

// `args` is appended to the binary's quoted path as written, so callers quote paths.
// With Stderr::merged, messages on stderr land in `out` too; Stderr::dropped keeps `out`
// to stdout alone (for output that must parse, such as --json).
inline CommandResult run(const std::string& args, Stderr stderr_mode = Stderr::merged) {
  CommandResult r;
  const std::string cmd = std::string("'") + KHARNESS_BINARY + "' " + args +
                          (stderr_mode == Stderr::merged ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

}  // namespace kh::cli_test
