// CuptiActivity: the process's one owner of CUPTI's activity API.
//
// CUPTI's activity buffers and callbacks are process-wide, so two owners would
// steal each other's records. The constructor claims ownership (a second live
// instance throws kh::Error), registers the buffer callbacks and enables kernel,
// memcpy and memset records, and runtime and driver API records (the host times of
// the launches); the destructor disables them and flushes.
//
// CUPTI calls the buffer callbacks from its own thread, so the records they
// deliver are kept in a mutex-protected store that outlives this object; drain()
// flushes CUPTI and takes everything delivered so far.
//
// Trust: the candidate runs in this process and can call cuptiActivityDisable or
// register its own callbacks. Nothing here can prevent that. It shows up as windows
// without records while the event and host clocks saw time pass, which the
// protocol layer cross-checks and flags as timer tampering.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "timing/activity_windows.h"

namespace kh {

// What CUPTI delivered: device work, and the API calls that launched it.
struct ActivityLog {
  std::vector<ActivityRecord> device;
  std::vector<LaunchRecord> launches;
};

class CuptiActivity {
 public:
  // Throws kh::Error with CUPTI's reason (e.g. CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
  // when the activity API cannot be enabled, so the caller can fall back to events.
  CuptiActivity();
  ~CuptiActivity();
  // The process-wide subscription cannot be shared or duplicated.
  CuptiActivity(const CuptiActivity&) = delete;
  CuptiActivity& operator=(const CuptiActivity&) = delete;

  // CUPTI's clock, the time base of every activity record, in ns.
  [[nodiscard]] static std::uint64_t timestamp_ns();
  // The CUPTI stream id of a stream of the current context.
  [[nodiscard]] static std::uint32_t stream_id(cudaStream_t stream);

  // Forgets the records delivered so far, and any drop or parse error among them: they
  // came before the caller's timing began.
  void discard() noexcept;
  // Flushes all of CUPTI's buffers (forced) and returns the records delivered since
  // the last drain. Throws TimerRecordsLost (iteration_timer.h) when CUPTI dropped records, kh::Error when a
  // buffer could not be parsed: spans computed from a partial record set would be wrong.
  [[nodiscard]] ActivityLog drain();
  // Whether drain() ran since the last ask. After a forced flush the next CUDA call that
  // makes a record (a launch, memset or copy) costs 180-270 us on the H200, whatever
  // the buffer size; the other calls (queries, synchronisation, events) do not.
  [[nodiscard]] bool take_drained() noexcept { return std::exchange(drained_, false); }

 private:
  bool drained_ = false;
};

}  // namespace kh
