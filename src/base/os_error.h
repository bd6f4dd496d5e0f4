// The one way a failed system call is reported: the call's name and errno text.
#pragma once

#include <cerrno>
#include <string_view>

#include "error/error.h"

namespace kh {

// "poll: Interrupted system call". `what` names the call, optionally with its
// argument ("open(/tmp/x/stderr.log)"), so the message says which call failed.
[[nodiscard]] Error os_error(std::string_view what, int err = errno);

// The strerror text of `err`, thread-safe.
[[nodiscard]] std::string errno_text(int err);

}  // namespace kh
