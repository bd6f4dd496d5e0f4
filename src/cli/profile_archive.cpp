#include "cli/profile_archive.h"

#include <filesystem>

#include "archive/profile_record.h"
#include "archive/run_writer.h"
#include "archive/set_files.h"
#include "archive/utc_time.h"
#include "cli/invocation.h"
#include "eval/trace_record.h"
#include "record/recorded_evaluation.h"

namespace kh::cli {

namespace {

using nlohmann::ordered_json;

// What a report or dashboard shows without opening the blob: each regime's verdict,
// taken from the report's own JSON so the two cannot disagree.
ordered_json diagnosis_summary(const ordered_json& report) {
  ordered_json regimes = ordered_json::array();
  for (const ordered_json& r : report.at("regimes")) {
    ordered_json line = ordered_json::object();
    for (const char* key : {"name", "representative", "status", "latency_ms", "sol_fraction", "bottleneck"})
      line[key] = r.at(key);
    regimes.push_back(std::move(line));
  }
  return {{"regimes", regimes}, {"seconds", report.at("seconds")}};
}

}  // namespace

ordered_json archive_profile(archive::Archive& store, const profile::ProfileRequest& request,
                             const profile::ProfileReport& report, record::EvaluationContext context) {
  const EvaluationTarget target = profile::representatives_target(request.target, report.plan);
  const std::vector<Trace> traces = record::evaluation_traces(target, report.evaluation, request.options);
  context.command_line = invocation();
  const archive::WrittenRun run = record::record_evaluation(store, target, report.evaluation, request.options,
                                                            traces, std::move(context));

  const ordered_json report_json = report.json();
  std::vector<archive::ProfileRecord> records = {
      {run.solution_content_id, run.run_id, std::nullopt, "diagnosis", report_json.dump(2) + "\n",
       diagnosis_summary(report_json)},
      {run.solution_content_id, run.run_id, std::nullopt, "diagnosis_markdown", report.markdown(), nullptr}};
  for (const profile::NcuSessionRecord& s : report.ncu_runs) {
    const std::filesystem::path csv = s.dir / "ncu.csv";
    if (!std::filesystem::exists(csv)) continue;  // ncu wrote nothing: the report's notes say why
    const std::optional<std::string> one =
        s.workloads.size() == 1 ? std::optional<std::string>(s.workloads.front()) : std::nullopt;
    records.push_back({run.solution_content_id,
                       run.run_id,
                       one,
                       "ncu",
                       archive::read_file_text(csv),
                       {{"workloads", s.workloads}, {"launches", s.launches}, {"seconds", s.seconds}}});
  }
  for (const archive::ProfileRecord& r : records) archive::record_profile(store, r);
  return {
      {"run_id", run.run_id}, {"solution_content_id", run.solution_content_id}, {"profiles", records.size()}};
}

}  // namespace kh::cli
