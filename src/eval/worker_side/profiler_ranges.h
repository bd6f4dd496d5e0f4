// The NVTX ranges a worker opens around each correctness call. `kharness profile`
// selects the candidate's launches by the outer one (profile/ncu_driver.h) and maps each
// profiled launch back to its workload by the inner one, so one ncu session can profile
// every regime's representative.
//
// Outer: kh_candidate_<n> or kh_reference_<n>, where n counts the calls on this
// workload from 1, so kh_candidate_2 is the call after one warm-up on every workload.
// Inner: kh_workload_<uuid>.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kh {

[[nodiscard]] std::string call_range_name(bool candidate, std::uint64_t call_on_workload);
[[nodiscard]] std::string workload_range_name(std::string_view workload_uuid);

}  // namespace kh
