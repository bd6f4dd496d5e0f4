#include "cli/profile_archive.h"

#include <fstream>
#include <sstream>

#include "archive/profile_record.h"
#include "archive/run_writer.h"
#include "archive/utc_time.h"
#include "cli/invocation.h"
#include "eval/trace_record.h"

namespace kh::cli {

namespace {

using nlohmann::ordered_json;

// What a report or dashboard shows without opening the blob: each regime's verdict.
ordered_json diagnosis_summary(const ProfileReport& report) {
  ordered_json regimes = ordered_json::array();
  for (const RegimeProfile& rp : report.regimes) {
    regimes.push_back({{"name", rp.regime.name},
                       {"representative", rp.result.workload.uuid},
                       {"status", std::string(status_name(rp.result.status))},
                       {"latency_ms", rp.evidence.latency_ms},
                       {"sol_fraction", rp.evidence.sol_fraction},
                       {"bottleneck", rp.diagnosis.bottleneck}});
  }
  return {{"regimes", regimes}, {"seconds", report.seconds}};
}

std::optional<std::string> read_whole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ordered_json archive_profile(archive::Archive& store, const ProfileRequest& request,
                             const ProfileReport& report, archive::EvaluationContext context) {
  const EvaluationTarget target = representatives_target(request.target, report.plan);
  std::vector<Trace> traces;
  for (const WorkloadResult& w : report.evaluation.workloads) {
    traces.push_back(make_trace(target, report.evaluation, w, request.options));
  }
  context.command_line = invocation();
  context.finished_at = archive::utc_now();
  const archive::WrittenRun run = archive::write_run(
      store, archive::evaluation_record(target, report.evaluation, request.options, traces, context));

  std::vector<archive::ProfileRecord> records = {
      {run.solution_content_id, run.run_id, std::nullopt, "diagnosis", report.json().dump(2) + "\n",
       diagnosis_summary(report)},
      {run.solution_content_id, run.run_id, std::nullopt, "diagnosis_markdown", report.markdown(), nullptr}};
  for (const NcuSessionRecord& s : report.ncu_runs) {
    const std::optional<std::string> csv = read_whole(s.dir / "ncu.csv");
    if (!csv) continue;  // ncu wrote nothing: the report's notes say why
    const std::optional<std::string> one =
        s.workloads.size() == 1 ? std::optional<std::string>(s.workloads.front()) : std::nullopt;
    records.push_back({run.solution_content_id,
                       run.run_id,
                       one,
                       "ncu",
                       *csv,
                       {{"workloads", s.workloads}, {"launches", s.launches}, {"seconds", s.seconds}}});
  }
  for (const archive::ProfileRecord& r : records) archive::record_profile(store, r);
  return {
      {"run_id", run.run_id}, {"solution_content_id", run.solution_content_id}, {"profiles", records.size()}};
}

}  // namespace kh::cli
