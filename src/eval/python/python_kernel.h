// PythonKernel: a Python or Triton solution (language "python" or "triton"), or a
// definition's PyTorch reference, loaded into the worker's embedded interpreter.
//
// Tensors pass without copies: each argument is wrapped as a DLPack capsule over the
// worker's own buffer (dlpack_capsule.h) and turned into a torch tensor by the driver
// (kernel_driver.py) in prepare(), outside the timed window; run() is the call alone
// (plus, for a value-returning solution, the check and copy of what it returned). On
// CUDA the harness's stream is torch's current stream during calls.
#pragma once

#include <memory>
#include <vector>

#include "device/backend.h"
#include "eval/python/python_interpreter.h"
#include "eval/python/python_load.h"
#include "eval/worker_side/kernel.h"

namespace kh {

class PythonKernel final : public Kernel {
 public:
  // Imports the solution. Throws KernelRejected for an error of the solution itself (a
  // syntax or import error, no such function), kh::Error when Python or torch is missing.
  [[nodiscard]] static std::unique_ptr<PythonKernel> open(const PythonLoad& load, Backend& backend);

  PythonKernel(const PythonKernel&) = delete;  // one owner of the solution object
  PythonKernel& operator=(const PythonKernel&) = delete;
  ~PythonKernel() override;

  [[nodiscard]] std::unique_ptr<PreparedCall> prepare(const std::vector<kh_arg>& args,
                                                      void* stream) const override;

 private:
  PythonKernel(python::Interpreter& python, python::Ref solution, std::vector<DType> dtypes)
      : python_(python), solution_(std::move(solution)), dtypes_(std::move(dtypes)) {}

  python::Interpreter& python_;
  python::Ref solution_;       // the driver's Solution
  std::vector<DType> dtypes_;  // per ABI parameter: the capsule carries bytes for fp8, fp4, bool
};

}  // namespace kh
