// OutputChecker: decides whether a candidate's outputs match the reference's.
//
// The generic rule (default_checker.cpp) suits most operators. Operators whose
// outputs are not comparable element by element (top-k indices) bring their own
// checker, next to the operator (operators/<definition>/harness/), registered by the
// name operator.json gives as "checker".
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "eval/check/value_comparison.h"
#include "tensor/host_tensor.h"
#include "trace/definition.h"

namespace kh {

struct CheckContext {
  const Definition& definition;
  const std::vector<HostTensor>& reference;  // outputs in definition order
  const std::vector<HostTensor>& candidate;
  Tolerance tolerance;
  // The inputs both saw, regenerated in the orchestrator from the seed on demand
  // (only checkers that recompute need them).
  std::function<const std::vector<HostTensor>&()> inputs;
  // Threads a check may use; 0: one per core.
  std::size_t threads = 0;
};

struct CheckVerdict {
  bool passed = false;
  bool non_finite = false;  // NaN/Inf in the candidate's output
  std::string reason;       // why it failed, naming the output; empty when passed
  double max_absolute_error = 0;
  double max_relative_error = 0;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // matched ratio, mean error, ...
};

class OutputChecker {
 public:
  virtual ~OutputChecker() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual CheckVerdict check(const CheckContext& context) const = 0;
};

using CheckerFactory = std::function<std::unique_ptr<OutputChecker>()>;

// Registers a checker by name; later registrations win.
void register_output_checker(std::string name, CheckerFactory make);

// "default" and the registered checkers. kh::Error naming the checker when unknown.
[[nodiscard]] std::unique_ptr<OutputChecker> make_output_checker(std::string_view name);

}  // namespace kh
