// Collects diagnostics for one object, prefixing field paths with the object's location.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/detail/json_field.h"
#include "trace/diagnostic.h"

namespace kh::detail {

class Report {
 public:
  explicit Report(Location base) : base_(std::move(base)) {}

  void error(std::string_view field, std::string message) { add(Severity::error, field, std::move(message)); }
  void warning(std::string_view field, std::string message) {
    add(Severity::warning, field, std::move(message));
  }
  void add(Severity s, std::string_view field, std::string message) {
    Location at = base_;
    if (!field.empty()) at.field = join_field(base_.field, field);
    out_.push_back(Diagnostic{s, std::move(at), std::move(message)});
  }
  void append(std::vector<Diagnostic> more) {
    for (auto& d : more) out_.push_back(std::move(d));
  }
  [[nodiscard]] const Location& base() const { return base_; }
  [[nodiscard]] std::vector<Diagnostic> take() { return std::move(out_); }

 private:
  Location base_;
  std::vector<Diagnostic> out_;
};

// Why a relative path in a solution or workload is unsafe ("is absolute", "contains '..'"),
// or empty when it is fine.
[[nodiscard]] std::string unsafe_path_reason(std::string_view path);

}  // namespace kh::detail
