// Keeping API keys out of everything kharness writes. Keys are read from the
// environment only; every transcript, log line and error message an agent produces
// passes through redact() before it leaves the agent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"

namespace kh::agents {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// The values of the named environment variables that are set (empty ones skipped).
[[nodiscard]] std::vector<std::string> secret_values(const std::vector<std::string>& env_names);

// `text` with every occurrence of every secret (of 4 characters or more) replaced, and,
// for secrets of 8 characters or more, its disguised forms too: split by whitespace,
// quotes, commas, plus signs or escaped line ends ("sk-ab" "cd", "sk-ab\ncd"); with
// any characters URL-encoded (%73k-...); in hex; and in base64 (standard or URL-safe,
// at any of the three alignments a secret takes inside a longer encoded text). An
// agent told to hide a key must do more than print it in another spelling.
[[nodiscard]] std::string redact(std::string text, const std::vector<std::string>& secrets);

// Redacts every regular file under a workspace in place (written to a temporary file
// and renamed, so a hard link to a file elsewhere is never written through), removes
// symbolic links (a link out of the workspace is not the agent's to keep), and removes
// files over `max_file_bytes` rather than keep them unread. Returns how many files it
// changed or removed.
std::size_t scrub_workspace(const std::filesystem::path& workspace, const std::vector<std::string>& secrets,
                            std::uintmax_t max_file_bytes = std::uintmax_t{16} << 20);

// Every text of a proposal (transcript, rejected excerpts and reasons, candidate
// sources and descriptions) with the secrets replaced: an agent that echoes a key into
// its answer must not carry it into the archive.
void redact_proposal(Proposal& p, const std::vector<std::string>& secrets);

// "Name: value" for a request header as it may appear in a log: the value is replaced
// for Authorization, Proxy-Authorization, x-api-key and api-key (case-insensitive).
[[nodiscard]] std::string loggable_header(std::string_view name, std::string_view value);

}  // namespace kh::agents
