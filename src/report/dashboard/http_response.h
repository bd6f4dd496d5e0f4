// What a dashboard handler answers, independent of the HTTP library that sends it.
#pragma once

#include <string>
#include <string_view>

namespace kh::report::dashboard {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
};

// A 404 page that says what was not found and where to go instead.
[[nodiscard]] HttpResponse not_found(std::string_view what);
// A 400 page for a malformed parameter.
[[nodiscard]] HttpResponse bad_request(std::string_view what);

}  // namespace kh::report::dashboard
