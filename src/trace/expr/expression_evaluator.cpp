#include "trace/expr/expression_evaluator.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "error/error.h"

namespace kh::expr {
namespace {

using Kind = Value::Kind;

Value unknown() { return Value{}; }
Value integer(std::int64_t v) {
  Value x;
  x.kind = Kind::integer;
  x.i = v;
  return x;
}
Value real(double v) {
  Value x;
  x.kind = Kind::real;
  x.r = v;
  return x;
}
Value boolean(bool v) {
  Value x;
  x.kind = Kind::boolean;
  x.b = v;
  return x;
}
Value truth(Truth t) { return t == Truth::unknown ? unknown() : boolean(t == Truth::is_true); }

// Python treats bool as an int in arithmetic (True + 1 == 2).
bool is_int(const Value& v) { return v.kind == Kind::integer || v.kind == Kind::boolean; }
bool is_number(const Value& v) { return is_int(v) || v.kind == Kind::real; }
std::int64_t as_int(const Value& v) { return v.kind == Kind::boolean ? static_cast<std::int64_t>(v.b) : v.i; }
double as_real(const Value& v) { return v.kind == Kind::real ? v.r : static_cast<double>(as_int(v)); }

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::integer:
      return "an integer";
    case Kind::real:
      return "a float";
    case Kind::boolean:
      return "a bool";
    case Kind::shape:
      return "a shape";
    case Kind::tensor:
      return "a tensor";
    case Kind::unknown:
      return "unknown";
  }
  return "a value";
}

[[noreturn]] void fail(const std::string& why) { throw Error(why); }

std::int64_t add(std::int64_t a, std::int64_t b, const std::string& op) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) fail("integer overflow in '" + op + "'");
  return r;
}
std::int64_t sub(std::int64_t a, std::int64_t b, const std::string& op) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) fail("integer overflow in '" + op + "'");
  return r;
}
std::int64_t mul(std::int64_t a, std::int64_t b, const std::string& op) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail("integer overflow in '" + op + "'");
  return r;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == 0) fail("division by zero in '//'");
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) fail("integer overflow in '//'");
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t py_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) fail("division by zero in '%'");
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

std::int64_t int_pow(std::int64_t base, std::int64_t exp) {
  std::int64_t result = 1;
  while (exp > 0) {
    if ((exp & 1) != 0) result = mul(result, base, "**");
    exp >>= 1;
    if (exp > 0) base = mul(base, base, "**");
  }
  return result;
}

Value int_arith(const std::string& op, std::int64_t a, std::int64_t b) {
  if (op == "+") return integer(add(a, b, op));
  if (op == "-") return integer(sub(a, b, op));
  if (op == "*") return integer(mul(a, b, op));
  if (op == "//") return integer(floor_div(a, b));
  if (op == "%") return integer(py_mod(a, b));
  if (op == "**") {
    if (b < 0) {
      if (a == 0) fail("division by zero in '**' (0 to a negative power)");
      return real(std::pow(static_cast<double>(a), static_cast<double>(b)));
    }
    return integer(int_pow(a, b));
  }
  if (b == 0) fail("division by zero in '/'");
  return real(static_cast<double>(a) / static_cast<double>(b));
}

Value real_arith(const std::string& op, double a, double b) {
  if (op == "+") return real(a + b);
  if (op == "-") return real(a - b);
  if (op == "*") return real(a * b);
  if (op == "**") return real(std::pow(a, b));
  if (b == 0.0) fail("division by zero in '" + op + "'");
  if (op == "/") return real(a / b);
  if (op == "//") return real(std::floor(a / b));
  double m = std::fmod(a, b);
  if (m != 0.0 && ((m < 0) != (b < 0))) m += b;
  return real(m);
}

Truth to_truth(const Value& v) {
  switch (v.kind) {
    case Kind::boolean:
      return v.b ? Truth::is_true : Truth::is_false;
    case Kind::integer:
      return v.i != 0 ? Truth::is_true : Truth::is_false;
    case Kind::real:
      return v.r != 0.0 ? Truth::is_true : Truth::is_false;
    case Kind::unknown:
      return Truth::unknown;
    default:
      fail(std::string("expected a number or a bool, got ") + kind_name(v.kind));
  }
}

Truth compare(const std::string& op, const Value& a, const Value& b) {
  if (a.kind == Kind::unknown || b.kind == Kind::unknown) return Truth::unknown;
  auto yes = [](bool x) { return x ? Truth::is_true : Truth::is_false; };
  if (a.kind == Kind::shape && b.kind == Kind::shape && (op == "==" || op == "!="))
    return yes((a.dims == b.dims) == (op == "=="));
  if (!is_number(a) || !is_number(b))
    fail(std::string("cannot compare ") + kind_name(a.kind) + " with " + kind_name(b.kind) + " using '" + op +
         "'");
  int c = 0;
  if (is_int(a) && is_int(b)) {
    c = as_int(a) < as_int(b) ? -1 : (as_int(a) > as_int(b) ? 1 : 0);
  } else {
    const double x = as_real(a);
    const double y = as_real(b);
    if (std::isnan(x) || std::isnan(y)) return yes(op == "!=");
    c = x < y ? -1 : (x > y ? 1 : 0);
  }
  if (op == "==") return yes(c == 0);
  if (op == "!=") return yes(c != 0);
  if (op == "<") return yes(c < 0);
  if (op == "<=") return yes(c <= 0);
  if (op == ">") return yes(c > 0);
  return yes(c >= 0);
}

Truth truth_and(Truth a, Truth b) {
  if (a == Truth::is_false || b == Truth::is_false) return Truth::is_false;
  if (a == Truth::unknown || b == Truth::unknown) return Truth::unknown;
  return Truth::is_true;
}

std::int64_t normalize_index(std::int64_t idx, std::int64_t size, const std::string& what) {
  const std::int64_t fixed = idx < 0 ? idx + size : idx;
  if (fixed < 0 || fixed >= size)
    fail("index " + std::to_string(idx) + " out of range for " + what + " of size " + std::to_string(size));
  return fixed;
}

class Evaluator {
 public:
  explicit Evaluator(const Environment& env) : env_(env) {}

  Value eval(const Node& n) {
    switch (n.kind) {
      case NodeKind::integer:
        return integer(n.int_value);
      case NodeKind::real:
        return real(n.real_value);
      case NodeKind::boolean:
        return boolean(n.bool_value);
      case NodeKind::name:
        return lookup(n.text);
      case NodeKind::unary:
        return unary(n);
      case NodeKind::binary:
        return binary(n);
      case NodeKind::compare:
        return chain(n);
      case NodeKind::attribute:
        return shape_of(eval(*n.children[0]));
      case NodeKind::index:
        return index(eval(*n.children[0]), eval(*n.children[1]));
      case NodeKind::call:
        return item(eval(*n.children[0]));
    }
    fail("unknown expression node");
  }

 private:
  Value lookup(const std::string& name) {
    if (env_.axes != nullptr) {
      auto it = env_.axes->find(name);
      if (it != env_.axes->end()) return integer(it->second);
    }
    if (env_.tensors == nullptr) return unknown();
    auto dims = env_.tensors->shape(name);
    if (!dims) return unknown();
    Value t;
    t.kind = Kind::tensor;
    t.tensor = name;
    t.dims = std::move(*dims);
    return t;
  }

  Value unary(const Node& n) {
    Value v = eval(*n.children[0]);
    if (n.text == "not") {
      Truth t = to_truth(v);
      return t == Truth::unknown ? unknown() : boolean(t == Truth::is_false);
    }
    if (v.kind == Kind::unknown) return v;
    if (!is_number(v)) fail(std::string("unary '") + n.text + "' needs a number, got " + kind_name(v.kind));
    if (n.text == "+") return is_int(v) ? integer(as_int(v)) : v;
    if (v.kind == Kind::real) return real(-v.r);
    if (as_int(v) == std::numeric_limits<std::int64_t>::min()) fail("integer overflow in unary '-'");
    return integer(-as_int(v));
  }

  Value binary(const Node& n) {
    if (n.text == "and" || n.text == "or") return logical(n);
    Value a = eval(*n.children[0]);
    Value b = eval(*n.children[1]);
    if (a.kind == Kind::unknown || b.kind == Kind::unknown) return unknown();
    if (!is_number(a) || !is_number(b))
      fail("'" + n.text + "' needs numbers, got " + kind_name(a.kind) + " and " + kind_name(b.kind));
    if (is_int(a) && is_int(b)) return int_arith(n.text, as_int(a), as_int(b));
    return real_arith(n.text, as_real(a), as_real(b));
  }

  // Short-circuits like Python, and a known side decides even when the other is unknown.
  Value logical(const Node& n) {
    const bool is_and = n.text == "and";
    Truth a = to_truth(eval(*n.children[0]));
    if (is_and && a == Truth::is_false) return boolean(false);
    if (!is_and && a == Truth::is_true) return boolean(true);
    Truth b = to_truth(eval(*n.children[1]));
    if (is_and) return truth(truth_and(a, b));
    if (b == Truth::is_true) return boolean(true);
    if (a == Truth::unknown || b == Truth::unknown) return unknown();
    return boolean(false);
  }

  Value chain(const Node& n) {
    Truth result = Truth::is_true;
    Value lhs = eval(*n.children[0]);
    for (std::size_t k = 0; k < n.ops.size(); ++k) {
      Value rhs = eval(*n.children[k + 1]);
      result = truth_and(result, compare(n.ops[k], lhs, rhs));
      if (result == Truth::is_false) return boolean(false);
      lhs = std::move(rhs);
    }
    return truth(result);
  }

  static Value shape_of(const Value& v) {
    if (v.kind == Kind::unknown) return v;
    if (v.kind != Kind::tensor) fail(std::string(".shape needs a tensor, got ") + kind_name(v.kind));
    Value s;
    s.kind = Kind::shape;
    s.dims.assign(v.dims.begin() + static_cast<std::ptrdiff_t>(v.indices.size()), v.dims.end());
    return s;
  }

  static Value index(const Value& base, const Value& idx) {
    if (base.kind == Kind::unknown || idx.kind == Kind::unknown) return unknown();
    if (!is_int(idx)) fail(std::string("an index must be an integer, got ") + kind_name(idx.kind));
    const std::int64_t i = as_int(idx);
    if (base.kind == Kind::shape)
      return integer(base.dims[static_cast<std::size_t>(
          normalize_index(i, static_cast<std::int64_t>(base.dims.size()), "shape"))]);
    if (base.kind != Kind::tensor) fail(std::string("cannot index ") + kind_name(base.kind));
    if (base.indices.size() >= base.dims.size())
      fail("too many indices for tensor '" + base.tensor + "' of rank " + std::to_string(base.dims.size()));
    Value out = base;
    out.indices.push_back(normalize_index(
        i, base.dims[base.indices.size()],
        "dimension " + std::to_string(base.indices.size()) + " of tensor '" + base.tensor + "'"));
    return out;
  }

  Value item(const Value& v) {
    if (v.kind == Kind::unknown) return v;
    if (v.kind != Kind::tensor) fail(std::string(".item() needs a tensor, got ") + kind_name(v.kind));
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < v.dims.size(); ++d) {
      const std::int64_t at = d < v.indices.size() ? v.indices[d] : 0;
      if (d >= v.indices.size() && v.dims[d] != 1)
        fail(".item() needs a 1-element selection of tensor '" + v.tensor + "', but dimension " +
             std::to_string(d) + " has size " + std::to_string(v.dims[d]));
      std::int64_t scaled = 0;
      if (__builtin_mul_overflow(flat, v.dims[d], &scaled) || __builtin_add_overflow(scaled, at, &flat))
        fail("index overflow in tensor '" + v.tensor + "'");
    }
    auto x = env_.tensors->value_at(v.tensor, flat);
    if (!x) return unknown();
    return real(*x);
  }

  const Environment& env_;
};

}  // namespace

std::string Value::to_string() const {
  switch (kind) {
    case Kind::integer:
      return std::to_string(i);
    case Kind::real: {
      std::ostringstream s;
      s << r;
      return s.str();
    }
    case Kind::boolean:
      return b ? "True" : "False";
    case Kind::shape: {
      std::string s = "(";
      for (std::size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + std::to_string(dims[k]);
      return s + (dims.size() == 1 ? ",)" : ")");
    }
    case Kind::tensor:
      return "tensor '" + tensor + "'";
    case Kind::unknown:
      return "unknown";
  }
  return "?";
}

Value evaluate(const Node& root, const Environment& env) { return Evaluator(env).eval(root); }

Truth evaluate_truth(const Node& root, const Environment& env) { return to_truth(evaluate(root, env)); }

}  // namespace kh::expr
