// What a kernel's machine code does, from `cuobjdump -sass`: the instruction classes
// that tell a tuned kernel from a naive one without running it.
//
//   tensor: HGMMA (Hopper bf16/fp16 warpgroup MMA), QGMMA (fp8), IGMMA, HMMA/IMMA
//           (warp-level MMA)
//   ffma:   FFMA (scalar fp32 multiply-add)
//   loads:  LDG by width: 128-bit (LDG.E.128) against 32/64-bit ones
//   local:  LDL/STL (local memory: spills or indexed arrays)
//   barriers: BAR
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kh::profile {

struct SassSummary {
  std::string function;  // mangled name
  std::string arch;      // "sm_90a"
  long instructions = 0;
  long tensor = 0;  // any MMA below
  long hgmma = 0, qgmma = 0, hmma = 0, other_mma = 0;
  long ffma = 0;
  long global_loads = 0, global_loads_128 = 0;
  // Copies from global memory that bypass the registers 16 bytes or more at a time: cp.async
  // of 16 bytes (LDGSTS.128), TMA tensor loads (UTMALDG), bulk copies (UBLKCP).
  long async_copies_wide = 0;
  long global_stores = 0, global_stores_128 = 0;
  long local_loads = 0, local_stores = 0;
  long barriers = 0;
  std::map<std::string, long> opcodes;  // base opcode (before the first '.') -> count
};

// One summary per function, in order of appearance.
[[nodiscard]] std::vector<SassSummary> parse_sass(std::string_view cuobjdump_output);

}  // namespace kh::profile
