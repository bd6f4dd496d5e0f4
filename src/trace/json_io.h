// Reading the four FlashInfer-Trace types from JSON and writing them back.
//
// Readers check JSON types and required fields and throw kh::Error naming the file, line
// and field path (e.g. "inputs.q.dtype"). Semantic rules (axes declared, names disjoint,
// ...) are validate.h's job, so a readable but wrong file can still be loaded and reported
// with all its problems at once.
//
// Writers start from the object as read (`raw`) and overwrite the modelled fields in place:
// unknown fields and key order survive, and a value that did not change keeps its exact
// spelling. Writing, reading and writing again gives identical bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "error/error.h"
#include "trace/definition.h"
#include "trace/solution.h"
#include "trace/trace.h"
#include "trace/workload.h"

namespace kh {

// `where` gives the file, line and field prefix used in error locations.
[[nodiscard]] Definition read_definition(const ordered_json& j, const Location& where = {});
[[nodiscard]] Solution read_solution(const ordered_json& j, const Location& where = {});
[[nodiscard]] Workload read_workload(const ordered_json& j, const Location& where = {});
[[nodiscard]] Evaluation read_evaluation(const ordered_json& j, const Location& where = {});
[[nodiscard]] Trace read_trace(const ordered_json& j, const Location& where = {});

[[nodiscard]] ordered_json to_json(const Definition& d);
[[nodiscard]] ordered_json to_json(const Solution& s);
[[nodiscard]] ordered_json to_json(const Workload& w);
[[nodiscard]] ordered_json to_json(const Evaluation& e);
[[nodiscard]] ordered_json to_json(const Trace& t);

// Text forms: definitions and solutions as 2-space-indented JSON ending in a newline;
// traces (and workload lines) as one compact line without the newline.
[[nodiscard]] std::string write_definition(const Definition& d);
[[nodiscard]] std::string write_solution(const Solution& s);
[[nodiscard]] std::string write_trace_line(const Trace& t);

// Text in, typed value out: parse_json_text then read_*.
[[nodiscard]] Definition parse_definition(std::string_view text, const Location& where = {});
[[nodiscard]] Solution parse_solution(std::string_view text, const Location& where = {});
[[nodiscard]] Trace parse_trace_line(std::string_view line, const Location& where = {});

}  // namespace kh
