// Reading and writing Trace and Evaluation.
#include <string>

#include "trace/detail/json_field.h"
#include "trace/json_io.h"
#include "trace/json_text.h"
#include "trace/non_finite.h"

namespace kh {
namespace {

using detail::FieldReader;
using detail::put;
using detail::put_unless_default;

Environment read_environment(const FieldReader& r) {
  Environment e;
  e.raw = r.json();
  e.hardware = r.string_or("hardware", "");
  if (!r.missing("libs")) {
    const FieldReader libs = r.object("libs");
    for (const auto& [name, v] : libs.json().items())
      e.libs.add(name, detail::expect_string(v, libs.at(name)));
  }
  return e;
}

Correctness read_correctness(const FieldReader& r) {
  Correctness c;
  c.raw = r.json();
  c.max_relative_error = r.number("max_relative_error");
  c.max_absolute_error = r.number("max_absolute_error");
  if (const ordered_json* extra = r.find("extra")) c.extra = *extra;
  return c;
}

Performance read_performance(const FieldReader& r) {
  Performance p;
  p.raw = r.json();
  p.latency_ms = r.number("latency_ms");
  p.reference_latency_ms = r.number("reference_latency_ms");
  p.speedup_factor = r.number("speedup_factor");
  return p;
}

ordered_json environment_to_json(const Environment& e) {
  ordered_json out = detail::start_from(e.raw);
  put_unless_default(out, "hardware", e.hardware, e.hardware.empty());
  ordered_json libs = ordered_json::object();
  for (const auto& [name, version] : e.libs) libs[name] = version;
  put_unless_default(out, "libs", libs, e.libs.empty());
  return out;
}

ordered_json correctness_to_json(const Correctness& c) {
  ordered_json out = detail::start_from(c.raw);
  put(out, "max_relative_error", number_json(c.max_relative_error));
  put(out, "max_absolute_error", number_json(c.max_absolute_error));
  put_unless_default(out, "extra", c.extra, c.extra.is_null());
  return out;
}

ordered_json performance_to_json(const Performance& p) {
  ordered_json out = detail::start_from(p.raw);
  put(out, "latency_ms", number_json(p.latency_ms));
  put(out, "reference_latency_ms", number_json(p.reference_latency_ms));
  put(out, "speedup_factor", number_json(p.speedup_factor));
  return out;
}

}  // namespace

Evaluation read_evaluation(const ordered_json& j, const Location& where) {
  const FieldReader r(j, where);
  Evaluation e;
  e.raw = j;
  const std::string status = r.string("status");
  auto parsed = parse_status(status);
  if (!parsed) r.fail("status", "unknown status '" + status + "'; expected one of " + status_list());
  e.status = *parsed;
  if (!r.missing("environment")) e.environment = read_environment(r.object("environment"));
  e.timestamp = r.string_or("timestamp", "");
  e.log = r.string_or("log", "");
  if (!r.missing("correctness")) e.correctness = read_correctness(r.object("correctness"));
  if (!r.missing("performance")) e.performance = read_performance(r.object("performance"));
  return e;
}

ordered_json to_json(const Evaluation& e) {
  ordered_json out = detail::start_from(e.raw);
  put(out, "status", std::string(status_name(e.status)));
  const bool env_empty =
      e.environment.hardware.empty() && e.environment.libs.empty() && e.environment.raw.is_null();
  put_unless_default(out, "environment", environment_to_json(e.environment), env_empty);
  put_unless_default(out, "timestamp", e.timestamp, e.timestamp.empty());
  put_unless_default(out, "log", e.log, e.log.empty());
  if (e.correctness)
    put(out, "correctness", correctness_to_json(*e.correctness));
  else
    put_unless_default(out, "correctness", nullptr, true);
  if (e.performance)
    put(out, "performance", performance_to_json(*e.performance));
  else
    put_unless_default(out, "performance", nullptr, true);
  return out;
}

Trace read_trace(const ordered_json& j, const Location& where) {
  const FieldReader r(j, where);
  Trace t;
  t.raw = j;
  t.definition = r.string("definition");
  t.workload = read_workload(r.required("workload"), r.at("workload"));
  t.solution = r.nullable_string("solution");
  if (!r.missing("evaluation")) t.evaluation = read_evaluation(r.required("evaluation"), r.at("evaluation"));
  return t;
}

ordered_json to_json(const Trace& t) {
  ordered_json out = detail::start_from(t.raw);
  put(out, "definition", t.definition);
  put(out, "solution", t.solution ? ordered_json(*t.solution) : ordered_json(nullptr));
  put(out, "workload", to_json(t.workload));
  put(out, "evaluation", t.evaluation ? to_json(*t.evaluation) : ordered_json(nullptr));
  return out;
}

std::string write_trace_line(const Trace& t) { return dump_compact(to_json(t)); }

Trace parse_trace_line(std::string_view line, const Location& where) {
  return read_trace(parse_json_text(line, where), where);
}

}  // namespace kh
