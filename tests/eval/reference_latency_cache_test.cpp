// The reference costs once: its latency is cached per (reference build, workload, device,
// protocol, clock state), reused on the next evaluation (the trace says so), measured
// again on request or when stale; its outputs are still computed for every seed.
#include "eval/reference_latency_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "end_to_end_fixture.h"
#include "eval/trace_record.h"
#include "support/temp_dir.h"

namespace kh {
namespace {

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128";

class ReferenceLatencies : public test::EndToEndSuite {
 protected:
  EvalOptions options(const test::TempDir& cache, const std::string& name) const {
    EvalOptions o = short_options("cpu", {1, 1, 5, 2, std::chrono::seconds(20)}, name);
    o.cache_dir = cache.path();
    return o;
  }
  static SolutionEvaluation run(const EvalOptions& o) {
    return evaluate(test::gallery_solution(kSolutions, "correct.cpp", "cpp", {"rmsnorm_common.h"}), o, 2);
  }
};

void expect_sources(const SolutionEvaluation& e, const std::string& source) {
  ASSERT_EQ(e.workloads.size(), 2u);
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.reference_latency.has_value());
    EXPECT_EQ(w.reference_latency->source, source) << w.workload.uuid;
    EXPECT_EQ(w.latency->source, "measured") << "the candidate is always timed";
  }
}

TEST_F(ReferenceLatencies, SecondEvaluationReusesTheReferenceLatency) {
  const test::TempDir cache;
  const SolutionEvaluation first = run(options(cache, "first"));
  expect_sources(first, "measured");
  const SolutionEvaluation second = run(options(cache, "second"));
  expect_sources(second, "cache");
  for (std::size_t i = 0; i < 2; ++i) {
    const LatencyMeasurement& a = *first.workloads[i].reference_latency;
    const LatencyMeasurement& b = *second.workloads[i].reference_latency;
    EXPECT_EQ(a.latency_ms, b.latency_ms);
    EXPECT_EQ(a.trial_medians_ms, b.trial_medians_ms);
    EXPECT_FALSE(b.measured_at.empty());
    EXPECT_EQ(second.workloads[i].check_seeds.size(), 1u) << "the reference still checks every seed";
  }
  // The trace says where the number came from.
  EvaluationTarget target;
  target.definition = ops_->find("rmsnorm_h128")->definition;
  target.speed_of_light = ops_->find("rmsnorm_h128")->speed_of_light;
  target.candidate.name = "correct";
  const EvalOptions o = options(cache, "second");
  const Trace t = make_trace(target, second, second.workloads[0], o, {});
  const auto& ref = t.evaluation->raw.at("kharness").at("reference_latency");
  EXPECT_EQ(ref.at("source"), "cache");
  EXPECT_FALSE(ref.at("cache_key").get<std::string>().empty());
  EXPECT_EQ(t.evaluation->raw.at("kharness").at("latency").at("source"), "measured");
}

TEST_F(ReferenceLatencies, RemeasureOnRequestRefreshesTheEntry) {
  const test::TempDir cache;
  (void)run(options(cache, "fill"));
  EvalOptions o = options(cache, "again");
  o.remeasure_reference = true;
  const SolutionEvaluation again = run(o);
  expect_sources(again, "measured");
  const SolutionEvaluation after = run(options(cache, "after"));
  expect_sources(after, "cache");
  EXPECT_EQ(after.workloads[0].reference_latency->latency_ms,
            again.workloads[0].reference_latency->latency_ms)
      << "the entry holds the re-measured latency";
}

TEST_F(ReferenceLatencies, ChangedProtocolOrStaleEntryIsMeasured) {
  const test::TempDir cache;
  (void)run(options(cache, "fill"));
  EvalOptions more = options(cache, "more");
  more.protocol.iterations = 6;  // another protocol: another key
  expect_sources(run(more), "measured");
  EvalOptions stale = options(cache, "stale");
  stale.reference_cache_max_age = std::chrono::seconds(-1);
  expect_sources(run(stale), "measured");
  EvalOptions off = options(cache, "off");
  off.cache_reference_latency = false;
  expect_sources(run(off), "measured");
}

TEST(ReferenceLatencyCache, ClockDriftMakesAnEntryStale) {
  const test::TempDir dir;
  const ReferenceLatencyCache cache(dir.path(), std::chrono::hours(1));
  LatencyMeasurement m;
  m.timer = "cupti_span";
  m.latency_ms = 0.25;
  m.trial_medians_ms = {0.25};
  m.samples_ms = {{0.25, 0.26}};
  m.mean_sm_clock_mhz = 1980;
  const nlohmann::ordered_json parts = {{"workload", "w"}};
  const std::string key = ReferenceLatencyCache::key(parts);
  cache.store(key, parts, m);
  ASSERT_TRUE(cache.find(key, 1950).has_value()) << "within 10% of the entry's clock";
  EXPECT_FALSE(cache.find(key, 1500).has_value()) << "the candidate ran at another clock";
  EXPECT_TRUE(cache.find(key, 0).has_value()) << "an unknown clock is not compared";
  EXPECT_FALSE(cache.find(ReferenceLatencyCache::key({{"workload", "other"}}), 0).has_value());
  EXPECT_EQ(cache.find(key, 0)->stats.count, 2u) << "statistics are recomputed from the samples";
}

}  // namespace
}  // namespace kh
