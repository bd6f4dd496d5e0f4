// One task of a job file, run where Slurm placed it (`kharness eval --job FILE --task N
// --task-out DIR`): the task's share of one evaluation, on the GPUs of its allocation.
// It leaves in DIR, which is on the shared folder:
//   traces.jsonl  FlashInfer-Trace lines, one as each workload finishes (for people);
//   result.json   the whole evaluation (evaluation_json.h), written last and renamed
//                 into place, so its presence means the task finished;
//   failure.json  instead, when the harness could not run ({"error": ...}).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace kh::scale {

struct EvalTaskRequest {
  std::filesystem::path job;
  std::size_t task = 0;
  std::filesystem::path out_dir;
  std::string gpus;  // --gpus for a CUDA evaluation ("all": what the allocation shows); empty: device 0
};

inline constexpr const char* kTaskResult = "result.json";
inline constexpr const char* kTaskFailure = "failure.json";
inline constexpr const char* kTaskTraces = "traces.jsonl";

// Returns 0 once result.json is written, whatever the verdicts. Throws kh::Error when the
// harness cannot run, after writing failure.json with the reason.
int run_eval_task(const EvalTaskRequest& request);

}  // namespace kh::scale
