// OperatorLibrary: kharness's own operators (operators/<definition-name>/), each with
// its definition, workloads, C++ and CUDA references and correctness settings.
//
// A reference is a Solution like any candidate, built and run the same way, so a
// broken reference cannot hurt the orchestrator either. `operator.json` names its
// files:
//   {"definition": NAME, "references": {"cpp": "file::fn", "cuda": "file::fn"},
//    "tolerance": {"atol", "rtol", "required_matched_ratio"}, "checker": "default"}
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/check/value_comparison.h"
#include "trace/definition.h"
#include "trace/solution.h"
#include "trace/workload.h"

namespace kh {

struct OperatorEntry {
  std::filesystem::path dir;
  Definition definition;
  std::optional<Tolerance> tolerance;
  std::string checker = "default";
  std::vector<std::pair<std::string, std::string>> references;  // language -> "file::fn"
};

class OperatorLibrary {
 public:
  // Reads every operators/*/operator.json under `root`. Errors name the file.
  static OperatorLibrary load(const std::filesystem::path& root);
  // $KHARNESS_OPERATORS, then <exe dir>/../operators and <exe dir>/operators, then
  // ./operators; nullopt when none exists.
  static std::optional<std::filesystem::path> default_root();

  [[nodiscard]] const OperatorEntry* find(std::string_view definition) const;
  [[nodiscard]] const std::vector<OperatorEntry>& entries() const noexcept { return entries_; }

  // The reference of `definition` for a backend ("cpu" -> cpp, "cuda" -> cuda) as a
  // Solution. Throws kh::Error saying clearly that no reference exists.
  [[nodiscard]] Solution reference(std::string_view definition, std::string_view backend) const;
  // The operator's own workloads file (workloads.jsonl), or ci-workloads.jsonl when
  // `small` is set.
  [[nodiscard]] std::vector<Workload> workloads(std::string_view definition, bool small) const;

 private:
  std::vector<OperatorEntry> entries_;
};

}  // namespace kh
