// Kernel: a solution loaded into the worker, whatever it is written in.
//
// The worker calls every kind of solution the same way: arguments in ABI order (inputs,
// scalars among them, then outputs, as kh_arg), the harness's stream, and a result. A
// call is prepared first and run second, so that converting the arguments (wrapping
// tensors for Python) stays outside the timed window and the call itself inside it.
// Kernels are made by load_kernel (kernel_loader.h), one runtime each.
#pragma once

#include <kharness/entry.h>

#include <memory>
#include <string>
#include <vector>

#include "error/error.h"
#include "eval/wire/kernel_rejected.h"
#include "trace/trace.h"

namespace kh {

// What one call came to. A failed call maps to RUNTIME_ERROR (an exception, a non-zero
// return), or to INCORRECT_SHAPE / INCORRECT_DTYPE when the values a solution returned do
// not fit the definition's outputs.
struct CallResult {
  EvalStatus status = EvalStatus::passed;
  std::string message;

  [[nodiscard]] bool ok() const noexcept { return status == EvalStatus::passed; }
  [[nodiscard]] static CallResult failed(std::string message, EvalStatus status = EvalStatus::runtime_error) {
    return {status, std::move(message)};
  }
};

// One call with its arguments already converted; run() is what the timers see.
class PreparedCall {
 public:
  virtual ~PreparedCall() = default;
  [[nodiscard]] virtual CallResult run() = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  // The tensors `args` point at must outlive the prepared call. A conversion that fails
  // comes back as a call whose run() reports it.
  [[nodiscard]] virtual std::unique_ptr<PreparedCall> prepare(const std::vector<kh_arg>& args,
                                                              void* stream) const = 0;

  // prepare() then run(), for calls whose conversion need not be kept apart.
  [[nodiscard]] CallResult call(const std::vector<kh_arg>& args, void* stream) const {
    return prepare(args, stream)->run();
  }
};

}  // namespace kh
