// Reading and writing Workload.
#include <string>

#include "trace/detail/json_field.h"
#include "trace/json_io.h"
#include "trace/non_finite.h"

namespace kh {
namespace {

using detail::FieldReader;
using detail::put;

WorkloadInput read_input(const FieldReader& r) {
  WorkloadInput in;
  in.raw = r.json();
  const std::string type = r.string("type");
  if (type == "random") {
    in.source = RandomInput{};
  } else if (type == "scalar") {
    const ordered_json& v = r.required("value");
    if (v.is_string()) {
      // "NaN" / "Infinity" as flashinfer-bench writes them; the value is the number.
      in.source = ScalarInput{detail::to_double(v, r.at("value"))};
    } else {
      if (!v.is_number() && !v.is_boolean())
        r.fail("value", "expected a number or a bool, got " + detail::type_of(v));
      in.source = ScalarInput{v};
    }
  } else if (type == "safetensors") {
    in.source = SafetensorsInput{r.string("path"), r.string("tensor_key")};
  } else {
    r.fail("type", "unknown input type '" + type + "'; expected random, scalar or safetensors");
  }
  return in;
}

ordered_json input_to_json(const WorkloadInput& in) {
  ordered_json out = detail::start_from(in.raw);
  if (std::holds_alternative<RandomInput>(in.source)) {
    put(out, "type", "random");
  } else if (const auto* s = std::get_if<ScalarInput>(&in.source)) {
    put(out, "type", "scalar");
    put(out, "value", s->value.is_number_float() ? number_json(s->value.get<double>()) : s->value);
  } else {
    const auto& t = std::get<SafetensorsInput>(in.source);
    put(out, "type", "safetensors");
    put(out, "path", t.path);
    put(out, "tensor_key", t.tensor_key);
  }
  return out;
}

}  // namespace

Workload read_workload(const ordered_json& j, const Location& where) {
  const FieldReader r(j, where);
  Workload w;
  w.raw = j;
  w.uuid = r.string_or("uuid", "");
  const FieldReader axes = r.object("axes");
  for (const auto& [name, value] : axes.json().items())
    w.axes.add(name, detail::to_int64(value, axes.at(name)));
  const FieldReader inputs = r.object("inputs");
  for (const auto& [name, value] : inputs.json().items())
    w.inputs.add(name, read_input(FieldReader(value, inputs.at(name))));
  return w;
}

ordered_json to_json(const Workload& w) {
  ordered_json out = detail::start_from(w.raw);
  detail::put_unless_default(out, "uuid", w.uuid, w.uuid.empty());
  ordered_json axes = ordered_json::object();
  for (const auto& [name, value] : w.axes) axes[name] = value;
  put(out, "axes", axes);
  ordered_json inputs = ordered_json::object();
  for (const auto& [name, value] : w.inputs) inputs[name] = input_to_json(value);
  put(out, "inputs", inputs);
  return out;
}

}  // namespace kh
