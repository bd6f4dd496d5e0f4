// The dashboard's static assets, compiled into the binary so that it serves everything
// itself and works without internet access.
#pragma once

#include <optional>
#include <string_view>

namespace kh::report::dashboard {

struct Asset {
  std::string_view content_type;
  std::string_view body;
};

// The asset served at /assets/<name>, if there is one.
[[nodiscard]] std::optional<Asset> find_asset(std::string_view name);

}  // namespace kh::report::dashboard
