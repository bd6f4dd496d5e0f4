#include "eval/check/default_checker.h"

#include <fmt/format.h>

#include <cmath>

#include "tensor/element_access.h"

namespace kh {

namespace {

// The first reason an output fails, or "" when it passes.
std::string failure_reason(const std::string& name, const ValueComparison& c, const Tolerance& t,
                           const HostTensor& a, const HostTensor& r) {
  if (c.non_finite > 0) {
    return fmt::format("output '{}' has {} NaN/Inf value(s) of {}", name, c.non_finite, c.elements);
  }
  if (c.elements > 0 && c.actual_all_zero && !c.reference_all_zero) {
    return fmt::format("output '{}' is all zeros but the reference is not", name);
  }
  if (c.elements > 1 && c.actual_constant && !c.reference_constant) {
    return fmt::format("output '{}' is one constant value ({}) but the reference is not", name,
                       read_as_double(a, 0));
  }
  if (!c.passes(t)) {
    return fmt::format(
        "output '{}': {:.4f}% of elements within atol={} rtol={} (required {:.4f}%); first mismatch at flat "
        "index {}: "
        "got {}, expected {}",
        name, c.matched_ratio() * 100, t.atol, t.rtol, t.required_matched_ratio * 100, c.first_mismatch,
        read_as_double(a, c.first_mismatch), read_as_double(r, c.first_mismatch));
  }
  return {};
}

}  // namespace

CheckVerdict DefaultChecker::check(const CheckContext& ctx) const {
  CheckVerdict v;
  v.passed = true;
  std::size_t i = 0;
  for (const auto& [name, spec] : ctx.definition.outputs) {
    const HostTensor& a = ctx.candidate[i];
    const HostTensor& r = ctx.reference[i];
    ++i;
    const ValueComparison c = compare_tensors(a, r, ctx.tolerance, ctx.threads);
    v.max_absolute_error = std::fmax(v.max_absolute_error, c.max_abs_error);
    v.max_relative_error = std::fmax(v.max_relative_error, c.max_rel_error);
    v.extra[name] = {{"matched_ratio", c.matched_ratio()},
                     {"mean_absolute_error", c.mean_abs_error},
                     {"max_absolute_error", c.max_abs_error},
                     {"max_relative_error", c.max_rel_error}};
    std::string reason = failure_reason(name, c, ctx.tolerance, a, r);
    if (!reason.empty() && v.passed) {
      v.passed = false;
      v.non_finite = c.non_finite > 0;
      v.reason = std::move(reason);
    }
  }
  return v;
}

}  // namespace kh
