// Reading and writing Definition.
#include <string>

#include "trace/detail/json_field.h"
#include "trace/json_io.h"
#include "trace/json_text.h"

namespace kh {
namespace {

using detail::FieldReader;
using detail::put;
using detail::put_unless_default;

std::string dtype_choices() {
  std::string out;
  for (DType t : trace_dtypes()) out += (out.empty() ? "" : ", ") + std::string(dtype_name(t));
  return out;
}

Axis read_axis(const FieldReader& r) {
  Axis a;
  a.raw = r.json();
  a.description = r.string_or("description", "");
  // Without a type, flashinfer-bench's model reads an axis as const when it has a value
  // and as var when it has none (its writer leaves the default type out: `{}`).
  const std::string type = r.missing("type") ? (r.missing("value") ? "var" : "const") : r.string("type");
  if (type == "const") {
    a.kind = ConstAxis{detail::to_int64(r.required("value"), r.at("value"))};
  } else if (type == "var") {
    a.kind = VarAxis{};
  } else {
    r.fail("type", "unknown axis type '" + type + "'; expected const or var");
  }
  return a;
}

TensorSpec read_tensor_spec(const FieldReader& r) {
  TensorSpec t;
  t.raw = r.json();
  const ordered_json& shape = r.required("shape");
  if (shape.is_array()) {
    t.shape.emplace();
    for (std::size_t i = 0; i < shape.size(); ++i) {
      Location item = r.at("shape");
      item.field = detail::index_field(item.field, i);
      t.shape->push_back(detail::expect_string(shape[i], item));
    }
  } else if (!shape.is_null()) {
    r.fail("shape", "expected a list of axis names or null (a scalar), got " + detail::type_of(shape));
  }
  const std::string dtype = r.string("dtype");
  auto parsed = parse_dtype(dtype);
  if (!parsed) r.fail("dtype", "unknown dtype '" + dtype + "'; expected one of " + dtype_choices());
  t.dtype = *parsed;
  t.description = r.string_or("description", "");
  t.optional = r.boolean("optional").value_or(false);
  return t;
}

template <class T, class ReadOne>
NamedList<T> read_named(const FieldReader& parent, std::string_view key, ReadOne read_one) {
  NamedList<T> out;
  const FieldReader obj = parent.object(key);
  for (const auto& [name, value] : obj.json().items())
    out.add(name, read_one(FieldReader(value, obj.at(name))));
  return out;
}

std::vector<Constraint> read_constraints(const FieldReader& r) {
  std::vector<Constraint> out;
  for (std::string& text : r.string_list("constraints")) out.push_back(parse_constraint(std::move(text)));
  return out;
}

ordered_json axis_to_json(const Axis& a) {
  ordered_json out = detail::start_from(a.raw);
  // An axis read without a type is written back without one, as long as it means the same.
  const bool typeless =
      a.raw.is_object() && !a.raw.contains("type") && a.raw.contains("value") == a.is_const();
  if (!typeless) put(out, "type", a.is_const() ? "const" : "var");
  if (a.is_const())
    put(out, "value", a.const_value());
  else
    out.erase("value");
  put_unless_default(out, "description", a.description, a.description.empty());
  return out;
}

ordered_json spec_to_json(const TensorSpec& t) {
  ordered_json out = detail::start_from(t.raw);
  put(out, "shape", t.shape ? ordered_json(*t.shape) : ordered_json(nullptr));
  put(out, "dtype", std::string(dtype_name(t.dtype)));
  put_unless_default(out, "description", t.description, t.description.empty());
  put_unless_default(out, "optional", t.optional, !t.optional);
  return out;
}

template <class T, class Write>
ordered_json named_to_json(const NamedList<T>& list, Write write) {
  ordered_json out = ordered_json::object();
  for (const auto& [name, value] : list) out[name] = write(value);
  return out;
}

}  // namespace

Definition read_definition(const ordered_json& j, const Location& where) {
  const FieldReader r(j, where);
  Definition d;
  d.raw = j;
  d.name = r.string("name");
  // Early flashinfer-bench files call op_type "type".
  d.op_type = r.missing("op_type") ? r.string_or("type", "") : r.string("op_type");
  d.description = r.string_or("description", "");
  d.tags = r.string_list("tags");
  d.axes = read_named<Axis>(r, "axes", read_axis);
  d.inputs = read_named<TensorSpec>(r, "inputs", read_tensor_spec);
  d.outputs = read_named<TensorSpec>(r, "outputs", read_tensor_spec);
  d.constraints = read_constraints(r);
  d.reference = r.string_or("reference", "");
  return d;
}

ordered_json to_json(const Definition& d) {
  ordered_json out = detail::start_from(d.raw);
  put(out, "name", d.name);
  const bool old_style = out.contains("type") && !out.contains("op_type");
  put_unless_default(out, old_style ? "type" : "op_type", d.op_type, d.op_type.empty());
  put_unless_default(out, "description", d.description, d.description.empty());
  put_unless_default(out, "tags", d.tags, d.tags.empty());
  put(out, "axes", named_to_json(d.axes, axis_to_json));
  std::vector<std::string> texts;
  for (const Constraint& c : d.constraints) texts.push_back(c.text);
  put_unless_default(out, "constraints", texts, texts.empty());
  put(out, "inputs", named_to_json(d.inputs, spec_to_json));
  put(out, "outputs", named_to_json(d.outputs, spec_to_json));
  put_unless_default(out, "reference", d.reference, d.reference.empty());
  return out;
}

std::string write_definition(const Definition& d) { return dump_indented(to_json(d)); }

Definition parse_definition(std::string_view text, const Location& where) {
  return read_definition(parse_json_text(text, where), where);
}

}  // namespace kh
