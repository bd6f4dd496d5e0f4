// Trace: one evaluation record: which definition, workload and solution, and the result.
// A workload file is a list of Traces whose solution and evaluation are null.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "trace/named_list.h"
#include "trace/workload.h"

namespace kh {

using ordered_json = nlohmann::ordered_json;

enum class EvalStatus : std::uint8_t {
  passed,
  incorrect_shape,
  incorrect_numerical,
  incorrect_dtype,
  runtime_error,
  compile_error,
  timeout,
  reward_hack,  // kharness's own: a solution caught gaming the check (not upstream)
};

[[nodiscard]] std::optional<EvalStatus> parse_status(std::string_view name) noexcept;
[[nodiscard]] std::string_view status_name(EvalStatus s) noexcept;  // "PASSED", ...
[[nodiscard]] std::string status_list();                            // "PASSED, INCORRECT_SHAPE, ..."

struct Environment {
  std::string hardware;
  NamedList<std::string> libs;  // library name -> version
  ordered_json raw;
};

struct Correctness {
  double max_relative_error = 0.0;
  double max_absolute_error = 0.0;
  ordered_json extra;  // null when absent
  ordered_json raw;
};

struct Performance {
  double latency_ms = 0.0;
  double reference_latency_ms = 0.0;
  double speedup_factor = 0.0;
  ordered_json raw;
};

struct Evaluation {
  EvalStatus status = EvalStatus::passed;
  Environment environment;
  std::string timestamp;
  std::string log;
  std::optional<Correctness> correctness;
  std::optional<Performance> performance;
  ordered_json raw;
};

struct Trace {
  std::string definition;
  Workload workload;
  std::optional<std::string> solution;   // null in workload files
  std::optional<Evaluation> evaluation;  // null in workload files
  ordered_json raw;
};

}  // namespace kh
