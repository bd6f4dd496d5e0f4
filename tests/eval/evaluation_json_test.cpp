// SolutionEvaluation <-> JSON: what a Slurm task writes and the submitter merges. Every
// field that reaches a trace, a table or the archive survives the round trip (raw
// samples and 64-bit seeds exactly), and a damaged result is refused naming the field.
#include "eval/evaluation_json.h"

#include <gtest/gtest.h>

#include "error/error.h"

namespace kh {
namespace {

Workload workload(const std::string& uuid) {
  Workload w;
  w.uuid = uuid;
  w.axes.add("batch", 3);
  return w;
}

LatencyMeasurement latency(double ms) {
  LatencyMeasurement m;
  m.timer = "cupti_span";
  m.latency_ms = ms;
  m.trial_medians_ms = {ms, ms * 1.01};
  m.stats.count = 4;
  m.stats.median = ms;
  m.stats.ci_low = ms * 0.99;
  m.throttled = 1;
  m.mean_sm_clock_mhz = 1980;
  m.set_seeds = {{0xFFFFFFFFFFFFFFFFULL, 1}, {2, 3}};
  m.samples_ms = {{ms, 0.1 + ms}, {1.0 / 3.0, 2e-9}};
  m.stop_reason = "iterations";
  m.phases_ms = {{"timed", 1.5}};
  m.request_wall_ms = 12.25;
  return m;
}

SolutionEvaluation sample() {
  SolutionEvaluation e;
  e.candidate_build.status = BuildResult::Status::ok;
  e.candidate_build.library = "/cache/ab/abc/lib.so";
  e.candidate_build.key = "abc";
  e.candidate_build.log = "warning: x";
  e.reference_build.status = BuildResult::Status::compile_error;
  e.reference_build.message = "no";
  e.device = {{"name", "NVIDIA H200"}, {"uuid", "GPU-1"}, {"index", 0}};
  e.compiler = "Cuda compilation tools, release 13.0";
  e.peaks = DevicePeaks{4.1e12, 6e13, 9e14, 1.8e15, "copy"};
  e.lanes = {LaneDevice{e.device, e.peaks, ""}, LaneDevice{{{"index", 1}}, std::nullopt, "not measured"}};
  WorkloadResult passed;
  passed.workload = workload("w-1");
  passed.status = EvalStatus::passed;
  passed.check_seeds = {7, 0x8000000000000001ULL};
  passed.correctness = CheckVerdict{true, false, "", 1e-3, 2e-3, {{"matched_ratio", 1.0}}};
  passed.latency = latency(0.0123);
  passed.reference_latency = latency(0.05);
  passed.reference_latency->source = "cache";  // reused from the reference-latency cache
  passed.reference_latency->measured_at = "2026-01-02T03:04:05Z";
  passed.reference_latency->cache_key = "f00d";
  passed.lane = 1;
  passed.orchestrator_ms = {{"correctness", 1.5}, {"compare", 0.25}, {"timing", 3.0}};
  passed.work = WorkloadWork{1e9, 2e6};
  passed.speed_of_light = SpeedOfLight{1e-6, 5e-7, 1e-6, 500, 200, "memory"};
  WorkloadResult hacked;
  hacked.workload = workload("w-2");
  hacked.status = EvalStatus::reward_hack;
  hacked.log = "input 'x' was modified";
  hacked.worker_restarts = 2;
  WorkloadResult skipped;  // --max-consecutive-failures: left unrun after a streak of timeouts
  skipped.workload = workload("w-3");
  skipped.status = EvalStatus::timeout;
  skipped.fatal = true;
  skipped.not_run = true;
  e.workloads = {passed, hacked, skipped};
  e.sandbox = {{"level", "namespaces"}, {"seccomp", true}};
  return e;
}

TEST(EvaluationJson, RoundTripKeepsEveryField) {
  const SolutionEvaluation e = sample();
  const std::vector<Workload> workloads = {e.workloads[0].workload, e.workloads[1].workload,
                                           e.workloads[2].workload};
  const nlohmann::ordered_json j = evaluation_to_json(e);
  // Through text, as it travels on the shared folder.
  const SolutionEvaluation back = evaluation_from_json(nlohmann::ordered_json::parse(j.dump()), workloads);
  EXPECT_EQ(evaluation_to_json(back), j);
  ASSERT_EQ(back.workloads.size(), 3u);
  EXPECT_EQ(back.workloads[0].latency->set_seeds[0][0], 0xFFFFFFFFFFFFFFFFULL);
  EXPECT_EQ(back.workloads[0].latency->samples_ms[1][0], 1.0 / 3.0) << "doubles travel exactly";
  EXPECT_EQ(back.workloads[1].status, EvalStatus::reward_hack);
  EXPECT_EQ(back.peaks_of(back.workloads[0]), std::nullopt) << "workload 0 ran on lane 1, which had no peaks";
  EXPECT_EQ(back.device_of(back.workloads[1]).value("uuid", ""), "GPU-1");
  EXPECT_EQ(back.workloads[0].reference_latency->source, "cache");
  EXPECT_EQ(back.workloads[0].reference_latency->cache_key, "f00d");
  EXPECT_TRUE(back.workloads[2].fatal);
  EXPECT_TRUE(back.workloads[2].not_run);
  EXPECT_FALSE(back.workloads[1].not_run);
  EXPECT_EQ(back.sandbox.value("level", ""), "namespaces");
  EXPECT_EQ(back.workloads[0].orchestrator_ms.value("compare", 0.0), 0.25);
}

TEST(EvaluationJson, ResultsStoredBeforeTheOrchestratorsAccountStillRead) {
  const SolutionEvaluation e = sample();
  const std::vector<Workload> workloads = {e.workloads[0].workload, e.workloads[1].workload,
                                           e.workloads[2].workload};
  nlohmann::ordered_json j = evaluation_to_json(e);
  for (auto& w : j["workloads"]) w.erase("orchestrator_ms");
  const SolutionEvaluation back = evaluation_from_json(j, workloads);
  EXPECT_TRUE(back.workloads[0].orchestrator_ms.empty());
}

TEST(EvaluationJson, DamagedResultsAreRefusedNamingTheField) {
  const SolutionEvaluation e = sample();
  const std::vector<Workload> workloads = {e.workloads[0].workload, e.workloads[1].workload,
                                           e.workloads[2].workload};
  auto expect_refused = [&](nlohmann::ordered_json j, const std::string& field) {
    try {
      (void)evaluation_from_json(j, workloads);
      ADD_FAILURE() << "accepted a result damaged at " << field;
    } catch (const Error& err) {
      EXPECT_EQ(err.where().field, field) << err.what();
    }
  };
  nlohmann::ordered_json j = evaluation_to_json(e);
  j["workloads"][1]["status"] = "MAYBE";
  expect_refused(j, "evaluation.workloads[1].status");
  j = evaluation_to_json(e);
  j["workloads"][0]["uuid"] = "someone-else";
  expect_refused(j, "evaluation.workloads[0].uuid");
  j = evaluation_to_json(e);
  j["workloads"][0]["lane"] = 7;
  expect_refused(j, "evaluation.workloads[0].lane");
  j = evaluation_to_json(e);
  j["workloads"][0]["latency"].erase("samples_ms");
  expect_refused(j, "evaluation.workloads[0].latency.samples_ms");
  j = evaluation_to_json(e);
  j["workloads"][2].erase("not_run");
  expect_refused(j, "evaluation.workloads[2].not_run");
  j = evaluation_to_json(e);
  j["workloads"].erase(1);
  expect_refused(j, "evaluation.workloads");
}

}  // namespace
}  // namespace kh
