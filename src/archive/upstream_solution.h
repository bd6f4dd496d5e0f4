// A solution file as flashinfer-bench's loader and builders take it.
//
// flashinfer-bench builds cpp and cuda solutions with tvm-ffi (or as torch extensions)
// and its model requires an author, a target hardware and non-empty sources. A solution
// with kharness's own binding is converted: its entry file is renamed `<file>.inc`, a
// generated adapter (compile/tvm_ffi_adapter.h) exports the entry under its own name through
// tvm-ffi, and the kharness headers it includes travel with it as sources, so the result
// builds and runs under flashinfer-bench as it is (and under kharness, binding tvm-ffi).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/definition.h"

namespace kh::archive {

struct UpstreamSolution {
  std::optional<std::string> text;  // the file to write; nullopt: left out (see note)
  std::string note;                 // what was changed or why it was left out; "" when unchanged
};

struct UpstreamSolutionInputs {
  const Definition* definition = nullptr;  // needed to convert a kharness-binding solution
  std::vector<std::string> hardware;       // where it was evaluated: fills an empty target_hardware
  std::optional<std::string> rename;       // a new name (two contents under one name)
};

// `text` unchanged (byte for byte) when upstream takes it as it is. Throws kh::Error for
// a solution that does not parse.
[[nodiscard]] UpstreamSolution upstream_solution(std::string_view text, const UpstreamSolutionInputs& in);

}  // namespace kh::archive
