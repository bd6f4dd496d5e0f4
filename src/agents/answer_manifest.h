// The manifest an agent writes beside each candidate's sources (out/<name>/manifest.json):
//
//     {
//       "family": "memory_access",              required: technique family
//       "hypothesis": "16-byte loads ...",      required: one line, what and why
//       "language": "cpp",                      required: cpp or cuda
//       "entry_point": "kernel.cpp::rmsnorm",   required: FILE::FUNCTION, FILE in sources
//       "sources": ["kernel.cpp", "common.h"],  required: every file of the candidate
//       "name": "rmsnorm_two_rows",             optional: the solution's name
//       "description": "..."                    optional
//     }
//
// Unknown keys are errors, so a misspelt key is not silently ignored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kh::agents {

struct AnswerManifest {
  std::string family;
  std::string hypothesis;
  std::string language;
  std::string entry_point;
  std::vector<std::string> sources;
  std::string name;
  std::string description;
};

// Throws kh::Error naming `file` and the field.
[[nodiscard]] AnswerManifest parse_answer_manifest(std::string_view text, const std::string& file);

}  // namespace kh::agents
