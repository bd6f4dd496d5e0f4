// KH_REQUIRE_TORCH(): the first line of every test that runs Python solutions or PyTorch
// references. It finds a Python whose torch imports ($KHARNESS_PYTHON, then the venv
// scripts/setup.sh makes, then python3 on PATH), points the workers at it through
// $KHARNESS_PYTHON, and skips the test with the reason where there is none.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace kh::test {

// The interpreters tried, in order.
inline std::vector<std::string> python_candidates() {
  std::vector<std::string> out;
  if (const char* forced = std::getenv("KHARNESS_PYTHON"); forced != nullptr && *forced != '\0') {
    out.emplace_back(forced);
    return out;  // an explicit choice is the only one tried
  }
  if (const char* env = std::getenv("KHARNESS_PYTHON_ENV"); env != nullptr && *env != '\0') {
    out.push_back(std::string(env) + "/bin/python3");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr) {
    out.push_back(std::string(home) + "/.local/share/kharness/python/bin/python3");
  }
  out.emplace_back("python3");
  return out;
}

// Empty when a Python with torch was found (and $KHARNESS_PYTHON now names it);
// otherwise why the test cannot run. Asked once per test process.
inline const std::string& no_torch_reason() {
  static const std::string reason = [] {
    std::string tried;
    for (const std::string& python : python_candidates()) {
      const std::string probe = "'" + python + "' -c 'import torch' >/dev/null 2>&1";
      if (std::system(probe.c_str()) == 0) {
        ::setenv("KHARNESS_PYTHON", python.c_str(), 1);
        return std::string();
      }
      tried += (tried.empty() ? "" : ", ") + python;
    }
    return "no Python with torch (tried " + tried + "); scripts/setup.sh installs one";
  }();
  return reason;
}

}  // namespace kh::test

#define KH_REQUIRE_TORCH()                                                          \
  do {                                                                              \
    const std::string& kh_no_torch = ::kh::test::no_torch_reason();                 \
    if (!kh_no_torch.empty()) GTEST_SKIP() << "torch unavailable: " << kh_no_torch; \
  } while (0)
