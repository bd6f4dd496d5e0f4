// `kharness profile`: the evidence for one candidate, per regime, in one report.
//
// Steps: estimate each workload's cost and group the workloads into regimes
// (shape_regimes.h); evaluate the candidate at each regime's representative through the
// harness (latency, speed-of-light fraction); analyse the binary (static_analysis.h);
// profile one call per representative with ncu where there is one, all in one ncu
// session (ncu_driver.h);
// diagnose each regime (diagnosis_rules.h).
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "profile/diagnosis_rules.h"
#include "profile/ncu_driver.h"
#include "profile/shape_regimes.h"
#include "profile/static_analysis.h"

namespace kh::profile {

struct ProfileRequest {
  EvaluationTarget target;              // all workloads; the session picks representatives
  std::filesystem::path solution_file;  // for ncu's own eval (empty: no ncu)
  std::filesystem::path trace_set;      // empty: kharness's operators
  std::filesystem::path kharness;       // the binary ncu runs
  std::filesystem::path out_dir;        // report, ncu CSVs and logs
  EvalOptions options;
  bool use_ncu = true;
  // Told each step as it starts or ends (regimes found, a representative evaluated, the
  // ncu session), one line at a time: a profile takes tens of seconds on large shapes.
  std::function<void(const std::string&)> on_step;
};

struct RegimeProfile {
  Regime regime;
  WorkloadResult result;  // at the representative
  RegimeEvidence evidence;
  Diagnosis diagnosis;
  std::string ncu_note;
};

// One ncu session the profile ran: its raw page and log lie in `dir` (ncu.csv, ncu.log).
struct NcuSessionRecord {
  std::vector<std::string> workloads;  // uuids, in the order given
  std::filesystem::path dir;
  std::size_t launches = 0;  // profiled
  double seconds = 0;
  std::string note;  // why none, when none
};

struct ProfileReport {
  std::string definition;
  std::string solution;
  nlohmann::ordered_json device;
  RegimePlan plan;
  std::vector<std::string> workload_uuids;  // of the target's workloads, which plan's members index
  StaticReport static_report;
  bool static_analysed = false;
  std::vector<RegimeProfile> regimes;
  double seconds = 0;                      // the whole profile
  double evaluation_seconds = 0;           // the harness's run of the representatives
  std::vector<NcuSessionRecord> ncu_runs;  // after the evaluation
  SolutionEvaluation evaluation;           // of the representatives, in regime order

  [[nodiscard]] double ncu_seconds() const;
  [[nodiscard]] std::string markdown() const;
  [[nodiscard]] nlohmann::ordered_json json() const;
};

// Throws kh::Error for failures of the harness (no device, reference does not build).
// Regimes of the target's workloads, costed by its speed-of-light model (bytes +
// flops/100 + a launch's worth of bytes), or by the product of the var axes without one.
// `kharness profile` and the optimisation loop's quick gate group workloads alike.
[[nodiscard]] RegimePlan plan_regimes(const EvaluationTarget& target);

// `target` cut down to the first representative of each regime, in regime order: what a
// profile evaluates (and what an archive of it records).
[[nodiscard]] EvaluationTarget representatives_target(const EvaluationTarget& target, const RegimePlan& plan);

[[nodiscard]] ProfileReport run_profile(const ProfileRequest& request);

// The ncu step of run_profile (exposed for tests): fills each regime's kernels and notes
// from one ncu session over every representative, and a session of its own for a regime
// that one left without launches while it profiled others.
void attach_ncu_metrics(const ProfileRequest& request, ProfileReport& report);

}  // namespace kh::profile
