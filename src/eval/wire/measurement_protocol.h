// The requests an orchestrator sends a measurement worker, and their field names.
//
// Every request is a worker Message whose header "kind" is one of these. Fields:
//   hello  {}                                  -> {device:{...}, timers:[...]}
//   load   {library, signature}                -> {}
//   check  {definition, workload, root, seed, poison, candidate}
//          -> {outputs:[{name,dtype,shape,nbytes}], input_hashes_before:[hex],
//              input_hashes_after:[hex], call_ms, error?, sticky, lingering_cpu_ms}
//          payload: the outputs' bytes, concatenated in definition order
//   check_sets {definition, workload, root, seeds:[..], poisons:[byte per seed] | poison,
//               candidate}
//          -> {checks:[{outputs, input_hashes_before, input_hashes_after, call_ms} per seed],
//              error?, failed_seed?, sticky}
//          check for several seeds at once (the orchestrator asks it of the reference,
//          and of a candidate for its correctness trials on CUDA);
//          payload: each seed's outputs in turn, as check's
//   time   {definition, workload, root, set_seeds:[..], poison, warmup,
//           iterations | robust:{max_noise,min_samples,min_time_s,timeout_s,max_samples},
//           recheck}
//          -> {timer, timer_note, bulk:{samples, sets, hashes_per_set},
//              slots:[{slot, iteration, set, hashes:[hex per output]}],
//              stop_reason, error?, sticky, stray}
//          payload (worker_payload.h): per sample 7 doubles (ms, event_ms, call_ms,
//          activities, valid, clock_mhz, set), then the input sets' hashes before the
//          loop and after it, as uint64 [set][input];
//          the output slots stay on the device until the next check or time request
//   timed_outputs {slots:[slot..]}  -> {slots:[{slot, outputs:[{name,dtype,shape,nbytes}]}]}
//          payload: the named slots' outputs, concatenated in request order
//   peaks  {}   -> {peaks:{bandwidth, fp32, bf16_tensor, fp8_tensor, method}}
//   shutdown {}
// Input hashes are chunked_hash (tensor/chunked_hash.h) of each input's bytes, taken on
// the device after upload ("before") and after the call or the timed loop ("after");
// a slot's output hashes are taken the same way as the loop ends.
// A reply of kind "error" carries {message} for a failure of the harness itself
// (bad request, unloadable library); candidate failures travel in "error" fields of
// the normal replies so that the orchestrator can classify them.
#pragma once

namespace kh::measurement {

inline constexpr const char* kHello = "hello";
inline constexpr const char* kLoad = "load";
inline constexpr const char* kCheck = "check";
inline constexpr const char* kCheckSets = "check_sets";
inline constexpr const char* kTime = "time";
inline constexpr const char* kTimedOutputs = "timed_outputs";
inline constexpr const char* kPeaks = "peaks";
inline constexpr const char* kShutdown = "shutdown";

}  // namespace kh::measurement
