#include "trace/constraint.h"

#include <utility>

#include "trace/expr/parser.h"

namespace kh {

Constraint parse_constraint(std::string text) {
  Constraint c;
  c.text = std::move(text);
  try {
    c.ast = expr::parse_expression(c.text);
  } catch (const expr::SyntaxError& e) {
    c.parse_error = e.what_went_wrong();
    c.parse_error_position = e.position();
  }
  return c;
}

std::string describe_failure(const Constraint& c, const expr::Environment& env) {
  std::string out = "constraint '" + c.text + "' failed";
  if (!c.ast) return out;
  std::string values;
  for (const std::string& name : expr::collect_names(*c.ast)) {
    if (env.axes != nullptr) {
      auto it = env.axes->find(name);
      if (it != env.axes->end()) {
        values += (values.empty() ? "" : ", ") + name + "=" + std::to_string(it->second);
        continue;
      }
    }
    if (env.tensors == nullptr) continue;
    if (auto dims = env.tensors->shape(name)) {
      std::string s;
      for (std::size_t k = 0; k < dims->size(); ++k) s += (k ? ", " : "") + std::to_string((*dims)[k]);
      values += (values.empty() ? "" : ", ") + name + ".shape=[" + s + "]";
    }
  }
  return values.empty() ? out : out + ": " + values;
}

}  // namespace kh
