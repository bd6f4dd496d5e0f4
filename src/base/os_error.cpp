#include "base/os_error.h"

#include <string>
#include <system_error>

namespace kh {

std::string errno_text(int err) { return std::system_category().message(err); }

Error os_error(std::string_view what, int err) { return Error(std::string(what) + ": " + errno_text(err)); }

}  // namespace kh
