#include "eval/worker_side/profiler_ranges.h"

#include <fmt/format.h>

namespace kh {

std::string call_range_name(bool candidate, std::uint64_t call_on_workload) {
  return fmt::format("kh_{}_{}", candidate ? "candidate" : "reference", call_on_workload);
}

std::string workload_range_name(std::string_view workload_uuid) {
  return fmt::format("kh_workload_{}", workload_uuid);
}

}  // namespace kh
