// libFuzzer target: arbitrary bytes into every FlashInfer-Trace reader, the validators,
// axis binding and the constraint-expression parser and evaluator.
//
// The contract under test: bad input only ever raises kh::Error (or comes back as
// diagnostics); anything else (another exception, a crash, a sanitizer report) is a bug.
// Successful reads are also written back to check that writing is a fixed point.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trace/axis_binding.h"
#include "trace/json_io.h"
#include "trace/validate.h"

namespace {

const kh::Location kWhere{"fuzz.json", 1, ""};

// A small definition to validate fuzzed workloads against.
const kh::Definition& fixed_definition() {
  static const kh::Definition d = kh::parse_definition(R"J({"name":"g","op_type":"gdn",
    "axes":{"L":{"type":"var"},"N":{"type":"var"},"T":{"type":"var"},"H":{"type":"const","value":4}},
    "constraints":["L == N + 1","T == cu[-1].item()","q.shape[-1] == H","H % 2 == 0 and not T < 0"],
    "inputs":{"q":{"shape":["T","H"],"dtype":"bfloat16"},"cu":{"shape":["L"],"dtype":"int64"},"s":{"shape":null,"dtype":"float32"}},
    "outputs":{"o":{"shape":["T","H"],"dtype":"bfloat16"}},"reference":"def run(): pass"})J");
  return d;
}

void require_fixed_point(const std::string& once, const std::string& twice) {
  if (once != twice) std::abort();  // writing is not stable: a bug worth a crash report
}

void try_definition(std::string_view text) {
  try {
    const kh::Definition d = kh::parse_definition(text, kWhere);
    (void)kh::validate_definition(d, kWhere);
    const std::string once = kh::write_definition(d);
    require_fixed_point(once, kh::write_definition(kh::parse_definition(once)));
    kh::AxisValues axes;
    for (const auto& [name, axis] : d.axes) axes[name] = axis.is_const() ? axis.const_value() : 3;
    const kh::SpecShapes shapes(d, axes);
    (void)kh::evaluate_constraints(d, axes, &shapes);
  } catch (const kh::Error&) {
    // Expected for most inputs: a clean, located error is the correct outcome.
  }
}

void try_solution(std::string_view text) {
  try {
    const kh::Solution s = kh::parse_solution(text, kWhere);
    (void)kh::validate_solution(s, kWhere);
    const std::string once = kh::write_solution(s);
    require_fixed_point(once, kh::write_solution(kh::parse_solution(once)));
  } catch (const kh::Error&) {
    // Expected: see try_definition.
  }
}

void try_trace(std::string_view text) {
  try {
    const kh::Trace t = kh::parse_trace_line(text, kWhere);
    (void)kh::validate_trace(t, &fixed_definition(), kWhere);
    (void)kh::validate_trace(t, nullptr, kWhere);
    const std::string once = kh::write_trace_line(t);
    require_fixed_point(once, kh::write_trace_line(kh::parse_trace_line(once)));
    (void)kh::bind_axes(fixed_definition(), t.workload);
  } catch (const kh::Error&) {
    // Expected: see try_definition.
  }
}

void try_constraint(std::string_view text) {
  kh::Definition d = fixed_definition();
  d.constraints = {kh::parse_constraint(std::string(text))};
  (void)kh::validate_definition(d, kWhere);
  try {
    (void)kh::bind_axes_from_shapes(d, {{"q", {5, 4}}, {"cu", {3}}});
  } catch (const kh::Error&) {
    // Expected: a failing or unevaluable constraint is reported as an Error.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try_definition(text);
  try_solution(text);
  try_trace(text);
  if (size < 512) try_constraint(text);
  return 0;
}
