// The generic checker: the tolerance rule of value_comparison.h on every output,
// plus the anti-cheat rules that tolerance alone cannot see: a candidate whose output
// is all zeros, or one constant, where the reference's is not.
#pragma once

#include "eval/check/output_checker.h"

namespace kh {

class DefaultChecker final : public OutputChecker {
 public:
  [[nodiscard]] std::string_view name() const override { return "default"; }
  [[nodiscard]] CheckVerdict check(const CheckContext& context) const override;
};

}  // namespace kh
