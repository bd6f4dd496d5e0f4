#include "agents/retrying_post.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "agents/redaction.h"
#include "error/error.h"

namespace kh::agents {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kBodyExcerpt = 500;

bool retryable(const HttpResponse& r) { return r.status == 0 || r.status == 429 || r.status >= 500; }

std::string describe(const HttpResponse& r, const std::vector<std::string>& secrets) {
  if (r.status == 0) return fmt::format("no response ({})", r.transport_error);
  return redact(fmt::format("HTTP {}: {}", r.status, r.body.substr(0, kBodyExcerpt)), secrets);
}

}  // namespace

RetriedResponse post_with_retries(const HttpRequest& request, const RetryPolicy& policy,
                                  Clock::time_point deadline, const std::vector<std::string>& secrets) {
  RetriedResponse out;
  auto backoff = policy.initial_backoff;
  for (;;) {
    HttpRequest attempt = request;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    attempt.total_timeout = std::min(request.total_timeout, std::max(left, std::chrono::milliseconds(1)));
    ++out.attempts;
    HttpResponse r = http_post(attempt);
    if (r.status >= 200 && r.status < 300) {
      out.response = std::move(r);
      return out;
    }
    const std::string what = describe(r, secrets);
    out.log.push_back(fmt::format("attempt {}: POST {}: {}", out.attempts, request.url, what));
    if (!retryable(r)) {
      throw Error(Location{request.url, 0, ""},
                  fmt::format("the API refused the request ({}); not retried", what));
    }
    (r.status == 429 ? out.rate_limited : r.status == 0 ? out.transport_errors : out.server_errors)++;
    auto wait = std::min(backoff, policy.max_backoff);
    if (r.retry_after) {
      wait = std::max(wait, std::chrono::milliseconds(static_cast<std::int64_t>(*r.retry_after * 1000)));
    }
    if (out.attempts >= policy.max_attempts) {
      throw AgentUnavailable(Location{request.url, 0, ""},
                             fmt::format("gave up after {} attempts; last: {}", out.attempts, what));
    }
    if (Clock::now() + wait >= deadline) {
      throw AgentUnavailable(Location{request.url, 0, ""},
                             fmt::format("out of time after {} attempts (next wait {} ms); last: {}",
                                         out.attempts, wait.count(), what));
    }
    std::this_thread::sleep_for(wait);
    out.waited_s += std::chrono::duration<double>(wait).count();
    backoff = std::chrono::milliseconds(
        static_cast<std::int64_t>(static_cast<double>(backoff.count()) * policy.multiplier));
  }
}

}  // namespace kh::agents
