// KernelLibrary: a built candidate (or reference) loaded into the worker process: the
// Kernel of the "native" runtime (C++ and CUDA solutions built by build/).
//
// Owns the dlopen handle; the candidate's global constructors run in open(), which is
// why only workers ever open one. Calls go through the entry shim's kh_entry_v1, so the
// worker needs no knowledge of the typed signature.
#pragma once

#include <kharness/entry.h>

#include <string>
#include <vector>

#include "eval/worker_side/kernel.h"

namespace kh {

class KernelLibrary final : public Kernel {
 public:
  // Loads the library and checks its ABI version and stamped signature text.
  // Throws kh::Error naming the library and the mismatch.
  static KernelLibrary open(const std::string& path, const std::string& expected_signature);

  KernelLibrary(KernelLibrary&& other) noexcept;
  KernelLibrary& operator=(KernelLibrary&& other) noexcept;
  KernelLibrary(const KernelLibrary&) = delete;  // one owner of the dlopen handle
  KernelLibrary& operator=(const KernelLibrary&) = delete;
  ~KernelLibrary() override;

  // A failed call's message is the kernel's own return code, or the C++ exception text
  // the shim caught.
  [[nodiscard]] std::unique_ptr<PreparedCall> prepare(const std::vector<kh_arg>& args,
                                                      void* stream) const override;

 private:
  KernelLibrary() = default;
  void* handle_ = nullptr;
  kh_entry_v1_fn entry_ = nullptr;
  kh_last_error_fn last_error_ = nullptr;
};

}  // namespace kh
