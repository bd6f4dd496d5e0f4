#include "timing/cupti_activity.h"

#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "error/error.h"
#include "timing/detail/cupti_call.h"
#include "timing/iteration_timer.h"

namespace kh {

namespace {

// A timed call leaves a few records of about 200 bytes (its kernels, the poisoning and
// the flush): 1 MiB holds a long batch, and CUPTI asks for another when one fills. The
// first CUDA call after a forced flush costs CUPTI time that grows with the buffer: on
// the H200 about 250 us with 1 MiB, 550-620 us with 8 MiB (reusing buffers did not help).
constexpr std::size_t kBufferBytes = 1u << 20;
constexpr std::size_t kBufferAlignment = 8;  // CUPTI requires 8-byte aligned buffers

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,  // kernels on every stream, concurrently
    CUPTI_ACTIVITY_KIND_MEMCPY,             // includes device-to-device copies
    CUPTI_ACTIVITY_KIND_MEMSET,
    // The API calls that launched them, on the host's clock: a window holds the work
    // launched in it, whatever CUPTI's mapping of the GPU clock says (activity_windows.h).
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
};

// Written by CUPTI's thread in buffer_completed, read by drain() on the caller's.
struct RecordStore {
  std::mutex mutex;
  ActivityLog log;
  std::size_t dropped = 0;
  std::string parse_error;
};

RecordStore& store() {
  static RecordStore instance;
  return instance;
}

std::atomic<bool> g_owned{false};

template <typename Record>
ActivityRecord to_record(const CUpti_Activity* activity) {
  const auto* typed = reinterpret_cast<const Record*>(activity);
  return ActivityRecord{typed->start, typed->end, typed->streamId, typed->correlationId};
}

// Files one CUPTI record into the log; kinds that are neither device work nor an API
// call are skipped.
void file_record(const CUpti_Activity* activity, ActivityLog& log) {
  switch (activity->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      log.device.push_back(to_record<CUpti_ActivityKernel10>(activity));
      return;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      log.device.push_back(to_record<CUpti_ActivityMemcpy6>(activity));
      return;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      log.device.push_back(to_record<CUpti_ActivityMemset4>(activity));
      return;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(activity);
      log.launches.push_back(LaunchRecord{api->correlationId, api->start});
      return;
    }
    default:
      return;
  }
}

// C callbacks: no exception may cross them, so failures are stored as text and
// reported by drain().
void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;  // size 0: CUPTI drops and counts the records
  *max_records = 0;                               // as many as fit
}

void parse_buffer(uint8_t* buffer, size_t valid_size, ActivityLog& out, std::string& error) {
  CUpti_Activity* activity = nullptr;
  for (;;) {
    const CUptiResult status = cuptiActivityGetNextRecord(buffer, valid_size, &activity);
    if (status == CUPTI_ERROR_MAX_LIMIT_REACHED) return;
    if (status != CUPTI_SUCCESS) {
      error = std::string("cuptiActivityGetNextRecord failed: ") + detail::cupti_result_text(status);
      return;
    }
    file_record(activity, out);
  }
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid_size) {
  ActivityLog parsed;
  std::string error;
  if (buffer != nullptr && valid_size > 0) parse_buffer(buffer, valid_size, parsed, error);
  std::free(buffer);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
  RecordStore& s = store();
  const std::lock_guard lock(s.mutex);
  s.log.device.insert(s.log.device.end(), parsed.device.begin(), parsed.device.end());
  s.log.launches.insert(s.log.launches.end(), parsed.launches.begin(), parsed.launches.end());
  s.dropped += dropped;
  if (!error.empty() && s.parse_error.empty()) s.parse_error = std::move(error);
}

void disable_kinds(std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) KH_CUPTI_CALL_NOEXCEPT(cuptiActivityDisable(kKinds[i]));
}

}  // namespace

CuptiActivity::CuptiActivity() {
  if (g_owned.exchange(true)) throw Error("CUPTI activity is already owned by another timer in this process");
  std::size_t enabled = 0;
  try {
    KH_CUPTI_CALL(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    for (const CUpti_ActivityKind kind : kKinds) {
      KH_CUPTI_CALL(cuptiActivityEnable(kind));
      ++enabled;
    }
  } catch (const Error&) {
    // Undo what was enabled, release ownership, and let the caller fall back.
    disable_kinds(enabled);
    g_owned.store(false);
    throw;
  }
  // Records from before this owner existed belong to nobody.
  const std::lock_guard lock(store().mutex);
  store().log = {};
  store().dropped = 0;
  store().parse_error.clear();
}

CuptiActivity::~CuptiActivity() {
  disable_kinds(std::size(kKinds));
  KH_CUPTI_CALL_NOEXCEPT(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  g_owned.store(false);
}

std::uint64_t CuptiActivity::timestamp_ns() {
  std::uint64_t now = 0;
  KH_CUPTI_CALL(cuptiGetTimestamp(&now));
  return now;
}

std::uint32_t CuptiActivity::stream_id(cudaStream_t stream) {
  std::uint32_t id = 0;
  // A null context: CUPTI looks the stream up in whichever context owns it.
  KH_CUPTI_CALL(cuptiGetStreamIdEx(nullptr, stream, 0, &id));
  return id;
}

void CuptiActivity::discard() noexcept {
  RecordStore& s = store();
  const std::lock_guard lock(s.mutex);
  s.log = {};
  s.dropped = 0;
  s.parse_error.clear();
}

ActivityLog CuptiActivity::drain() {
  KH_CUPTI_CALL(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  drained_ = true;
  RecordStore& s = store();
  const std::lock_guard lock(s.mutex);
  const std::size_t dropped = std::exchange(s.dropped, 0);
  std::string error = std::exchange(s.parse_error, {});
  ActivityLog log = std::exchange(s.log, {});
  if (!error.empty()) throw Error("CUPTI activity: " + error);
  if (dropped > 0) throw TimerRecordsLost("CUPTI activity dropped " + std::to_string(dropped) + " records");
  return log;
}

}  // namespace kh
