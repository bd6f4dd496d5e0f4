#include "base/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "error/error.h"
#include "error/location.h"

namespace kh::detail {

TempDir::TempDir(const std::filesystem::path& parent, std::string_view prefix) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Error(at_file(parent.string()), "cannot create directory: " + ec.message());
  std::string templ = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr) {
    throw Error(at_file(parent.string()),
                std::string("cannot create a temporary directory: ") + std::strerror(errno));
  }
  path_ = templ;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;  // a destructor must not throw; a leftover temp dir is harmless
  std::filesystem::remove_all(path_, ec);
}

}  // namespace kh::detail
