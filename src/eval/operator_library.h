// OperatorLibrary: kharness's own operators (operators/<definition-name>/), each with
// its definition, workloads, C++ and CUDA references and correctness settings.
//
// A reference is a Solution like any candidate, built and run the same way, so a
// broken reference cannot hurt the orchestrator either. So is a baseline: the plain
// kernel a competent engineer writes first, the first speedup reference and the
// controller's starting point. `operator.json` names their files:
//   {"definition": NAME,
//    "references": {"cpp": "file::fn", "cuda": "file::fn"},
//    "baselines":  {"cpp": "file::fn", "cuda": "file::fn"},
//    "tolerance": {"atol", "rtol", "required_matched_ratio"}, "checker": "default",
//    "timing": {"warmup": N, "iterations": N},          // the contest's, when it differed
//    "speed_of_light": {"flops": EXPR, "bytes": EXPR, "compute": "fp32|bf16_tensor|fp8_tensor"}}
// Every header (*.h, *.cuh) in the operator's folder travels with each of them, so a
// reference and a baseline may share small pieces such as dtype conversions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/check/value_comparison.h"
#include "eval/evaluator.h"
#include "eval/speed_of_light.h"
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
  std::vector<std::pair<std::string, std::string>> baselines;   // language -> "file::fn"
  std::optional<SpeedOfLightModel> speed_of_light;
  std::optional<int> warmup;  // timing defaults of the contest, when they differ from ours
  std::optional<int> iterations;
};

class OperatorLibrary {
 public:
  // Reads every operators/*/operator.json under `root`. Errors name the file.
  static OperatorLibrary load(const std::filesystem::path& root);
  // One operator folder (its operator.json and definition.json), as load() reads each. Throws
  // kh::Error naming the file and field: bad JSON, a field of the wrong type, a "definition" that
  // is not definition.json's name, an entry file not in the folder.
  static OperatorEntry read_operator(const std::filesystem::path& dir);
  // $KHARNESS_OPERATORS, then <exe dir>/../operators and <exe dir>/operators, then
  // ./operators; nullopt when none exists.
  static std::optional<std::filesystem::path> default_root();

  [[nodiscard]] const OperatorEntry* find(std::string_view definition) const;
  [[nodiscard]] const std::vector<OperatorEntry>& entries() const noexcept { return entries_; }

  // kharness's own reference of `definition` for a backend ("cpu" -> cpp, "cuda" -> cuda)
  // as a Solution. Throws kh::Error saying clearly that no such reference exists.
  [[nodiscard]] Solution reference(std::string_view definition, std::string_view backend) const;
  [[nodiscard]] bool has_native_reference(std::string_view definition, std::string_view backend) const;
  // The reference an evaluation uses: the native one where kharness has it, else the
  // definition's own PyTorch `reference`, run by the worker's embedded Python. Throws
  // kh::Error when there is neither.
  [[nodiscard]] Solution reference_for(const Definition& definition, std::string_view backend) const;
  // The operator's baseline for a backend, the same way. Throws kh::Error when none.
  [[nodiscard]] Solution baseline(std::string_view definition, std::string_view backend) const;
  // What evaluating `candidate` on `workloads` of `definition` needs from this library:
  // the reference for `backend` (reference_for) and the operator's checker, tolerance and
  // speed-of-light model (defaults where the definition is not one of ours). Throws as
  // reference_for() does.
  [[nodiscard]] EvaluationTarget target(const Definition& definition, std::vector<Workload> workloads,
                                        std::filesystem::path root, Solution candidate,
                                        std::string_view backend) const;
  // The operator's own workloads file (workloads.jsonl), or ci-workloads.jsonl when
  // `small` is set.
  [[nodiscard]] std::vector<Workload> workloads(std::string_view definition, bool small) const;

 private:
  std::vector<OperatorEntry> entries_;
};

}  // namespace kh
