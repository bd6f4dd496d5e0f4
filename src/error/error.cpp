#include "error/error.h"

#include <utility>

namespace kh {

std::string Location::to_string() const {
  std::string out = file;
  if (line != 0) out += (out.empty() ? "line " : ":") + std::to_string(line);
  if (!field.empty()) out += (out.empty() ? "" : ": ") + field;
  return out;
}

namespace {
std::string compose(const Location& where, const std::string& reason) {
  std::string prefix = where.to_string();
  return prefix.empty() ? reason : prefix + ": " + reason;
}
}  // namespace

Error::Error(Location where, std::string reason)
    : std::runtime_error(compose(where, reason)), where_(std::move(where)), reason_(std::move(reason)) {}

}  // namespace kh
