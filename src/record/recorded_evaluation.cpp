#include "record/recorded_evaluation.h"

#include <fmt/format.h>

#include "archive/run_check.h"
#include "archive/utc_time.h"
#include "error/error.h"

namespace kh::record {

std::vector<Trace> evaluation_traces(const EvaluationTarget& target, const SolutionEvaluation& result,
                                     const EvalOptions& options, TraceStyle style) {
  std::vector<Trace> traces;
  traces.reserve(result.workloads.size());
  for (const WorkloadResult& w : result.workloads)
    traces.push_back(make_trace(target, result, w, options, style));
  return traces;
}

archive::WrittenRun record_evaluation(archive::Archive& store, const EvaluationTarget& target,
                                      const SolutionEvaluation& result, const EvalOptions& options,
                                      const std::vector<Trace>& traces, EvaluationContext context,
                                      const RecordAdjustment& adjust) {
  if (context.finished_at.empty()) context.finished_at = archive::utc_now();
  archive::RunRecord record = evaluation_record(target, result, options, traces, context);
  if (adjust) adjust(record);
  const archive::WrittenRun written = archive::write_run(store, record);
  if (const auto problems = archive::run_problems(store.db(), written.run_id); !problems.empty()) {
    throw Error(Location{store.dir().string(), 0, "runs"},
                fmt::format("run {} changed as it was written ({}); check the archive with `kharness archive "
                            "verify --deep`",
                            written.run_id, problems.front()));
  }
  return written;
}

RecordedEvaluation evaluate_and_record(const EvaluationTarget& target, EvalOptions options,
                                       RecordRequest request, const EvaluationRunner& run) {
  if (request.store != nullptr) pin_seed(options);
  if (request.context.started_at.empty()) request.context.started_at = archive::utc_now();
  RecordedEvaluation out;
  out.result = run ? run(target, options) : evaluate_solution(target, options);
  out.traces = evaluation_traces(target, out.result, options, request.style);
  if (request.store != nullptr) {
    out.written = record_evaluation(*request.store, target, out.result, options, out.traces,
                                    std::move(request.context), request.adjust);
  }
  return out;
}

}  // namespace kh::record
