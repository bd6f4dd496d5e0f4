// Per-kernel resource usage from ptxas's verbose report (`-Xptxas -v`, which kharness
// passes to every CUDA build, so each build log carries it).
//
//   ptxas info    : Compiling entry function '_Z4wide...' for 'sm_90a'
//   ptxas info    : Function properties for _Z4wide...
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 14 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kh::profile {

struct KernelResources {
  std::string name;  // mangled, as ptxas prints it
  std::string arch;  // "sm_90a"
  int registers = 0;
  int barriers = 0;
  long shared_bytes = 0;  // static shared memory
  long stack_bytes = 0;
  long spill_store_bytes = 0;
  long spill_load_bytes = 0;
};

// Entry functions in order of appearance; lines that are not ptxas's are ignored.
[[nodiscard]] std::vector<KernelResources> parse_ptxas_resources(std::string_view log);

}  // namespace kh::profile
