// The answer validator: turns what an agent left in `out/` into candidates, or into
// RejectedAnswers with a reason. Everything an agent writes is untrusted.
//
// `out/` holds one folder per candidate (out/<folder>/manifest.json + sources), or a
// single candidate at its top (out/manifest.json). For each candidate it checks:
// - the manifest parses (answer_manifest.h);
// - every declared path passes path_problem(), exists, is a regular file or a symlink
//   that resolves inside the candidate's folder, holds text (no NUL bytes);
// - the size limits (per file, per candidate, number of files);
// - the language is one the round accepts, and file extensions fit it;
// - the entry point's file is declared and defines its function;
// - the assembled solution passes trace/ validation.
// Candidates beyond max_candidates are rejected, never silently dropped.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "agents/agent.h"

namespace kh::agents {

struct AnswerLimits {
  std::size_t max_file_bytes = std::size_t{256} * 1024;
  std::size_t max_candidate_bytes = std::size_t{1024} * 1024;
  std::size_t max_files = 16;
  // Languages accepted; empty: the parent's language only (the backend builds it).
  std::vector<std::string> languages;
};

struct AnswerReading {
  std::vector<Candidate> candidates;
  std::vector<RejectedAnswer> rejected;
};

// `agent` becomes the solutions' author and part of default names.
[[nodiscard]] AnswerReading read_answer(const std::filesystem::path& out_dir, const ProposalContext& context,
                                        const std::string& agent, const AnswerLimits& limits = {});

}  // namespace kh::agents
