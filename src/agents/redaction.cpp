#include "agents/redaction.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace kh::agents {

namespace {

constexpr std::size_t kMinSecretChars = 4;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::vector<std::string> secret_values(const std::vector<std::string>& env_names) {
  std::vector<std::string> out;
  for (const auto& name : env_names) {
    const char* v = std::getenv(name.c_str());
    if (v != nullptr && *v != '\0') out.emplace_back(v);
  }
  return out;
}

std::string redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) {
    if (s.size() < kMinSecretChars) continue;
    for (auto pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos + kRedacted.size())) {
      text.replace(pos, s.size(), kRedacted);
    }
  }
  return text;
}

void redact_proposal(Proposal& p, const std::vector<std::string>& secrets) {
  p.transcript = redact(std::move(p.transcript), secrets);
  p.cost_note = redact(std::move(p.cost_note), secrets);
  for (RejectedAnswer& r : p.rejected) {
    r.reason = redact(std::move(r.reason), secrets);
    r.excerpt = redact(std::move(r.excerpt), secrets);
  }
  for (Candidate& c : p.candidates) {
    c.hypothesis = redact(std::move(c.hypothesis), secrets);
    c.solution.description = redact(std::move(c.solution.description), secrets);
    for (SourceFile& f : c.solution.sources) f.content = redact(std::move(f.content), secrets);
  }
}

std::string loggable_header(std::string_view name, std::string_view value) {
  constexpr std::array<std::string_view, 4> kSecretHeaders = {"authorization", "proxy-authorization",
                                                              "x-api-key", "api-key"};
  const bool secret = std::any_of(kSecretHeaders.begin(), kSecretHeaders.end(),
                                  [&](std::string_view h) { return iequals(h, name); });
  return std::string(name) + ": " + std::string(secret ? kRedacted : value);
}

}  // namespace kh::agents
