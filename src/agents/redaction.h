// Keeping API keys out of everything kharness writes. Keys are read from the
// environment only; every transcript, log line and error message an agent produces
// passes through redact() before it leaves the agent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"

namespace kh::agents {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// The values of the named environment variables that are set (empty ones skipped).
[[nodiscard]] std::vector<std::string> secret_values(const std::vector<std::string>& env_names);

// `text` with every occurrence of every secret (of 4 characters or more) replaced.
[[nodiscard]] std::string redact(std::string text, const std::vector<std::string>& secrets);

// Every text of a proposal (transcript, rejected excerpts and reasons, candidate
// sources and descriptions) with the secrets replaced: an agent that echoes a key into
// its answer must not carry it into the archive.
void redact_proposal(Proposal& p, const std::vector<std::string>& secrets);

// "Name: value" for a request header as it may appear in a log: the value is replaced
// for Authorization, Proxy-Authorization, x-api-key and api-key (case-insensitive).
[[nodiscard]] std::string loggable_header(std::string_view name, std::string_view value);

}  // namespace kh::agents
