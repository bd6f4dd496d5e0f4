// One HTTP POST through libcurl, with connect and total timeouts. No retries here
// (retrying_post.h decides); no logging here, so no header value can leak from it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kh::agents {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // may hold keys: never log them raw
  std::string body;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds total_timeout{300000};
};

struct HttpResponse {
  long status = 0;  // 0 when no response arrived
  std::string body;
  std::optional<double> retry_after;  // seconds, from a Retry-After header in seconds
  std::string transport_error;        // curl's message when no response arrived
  bool timed_out = false;
};

// Never throws for network failures (they are in the response); kh::Error only when
// kharness was built without libcurl.
[[nodiscard]] HttpResponse http_post(const HttpRequest& request);

}  // namespace kh::agents
