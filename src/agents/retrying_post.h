// POST with retries: exponential backoff on 429, 5xx and transport failures (refused
// connection, timeout), honouring Retry-After; a clear kh::Error on any other 4xx or
// when attempts or time run out. Every line it logs names the URL and the status, never
// a header value.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "agents/http_client.h"

namespace kh::agents {

struct RetryPolicy {
  int max_attempts = 5;
  std::chrono::milliseconds initial_backoff{1000};
  double multiplier = 2.0;
  std::chrono::milliseconds max_backoff{60000};
};

struct RetriedResponse {
  HttpResponse response;  // the 2xx one
  int attempts = 0;
  int rate_limited = 0;   // 429s retried
  int server_errors = 0;  // 5xx retried
  int transport_errors = 0;
  double waited_s = 0;
  std::vector<std::string> log;  // one line per failed attempt
};

// `deadline` bounds the whole exchange, waits included. `secrets` are redacted from
// error messages (a server may echo a request).
[[nodiscard]] RetriedResponse post_with_retries(const HttpRequest& request, const RetryPolicy& policy,
                                                std::chrono::steady_clock::time_point deadline,
                                                const std::vector<std::string>& secrets);

}  // namespace kh::agents
