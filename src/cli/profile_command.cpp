#include "cli/profile_command.h"

#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "archive/archive.h"
#include "archive/set_files.h"
#include "archive/utc_time.h"
#include "base/ordered_json_parse.h"
#include "cli/backend_choice.h"
#include "cli/executor_options.h"
#include "cli/guarded_run.h"
#include "cli/profile_archive.h"
#include "cli/sandbox_option.h"
#include "cli/workload_source.h"
#include "error/error.h"
#include "profile/profile_rediagnosis.h"
#include "profile/profile_session.h"
#include "record/evaluation_record.h"
#include "trace/bounded_file.h"
#include "trace/json_io.h"
#include "trace/trace_set.h"
#include "worker/self_executable.h"

namespace kh::cli {

namespace {

struct ProfileArgs {
  std::string definition;
  std::string solution;
  std::string trace_set;
  std::string operators;
  std::string backend = "auto";
  std::string out = "kharness-profile";
  std::string archive;     // record the evaluation and the evidence there
  std::string rediagnose;  // a stored profile.json to diagnose again (nothing is run)
  bool baseline = false;
  bool small = false;
  bool json = false;
  bool no_ncu = false;
  std::string sandbox = "best";
  ExecutorArgs scale_args;  // --gpus
};

profile::ProfileRequest make_request(const ProfileArgs& a, const std::string& backend) {
  const OperatorLibrary ops = operator_library(a.operators);
  LoadedInputs in = load_definition_workloads(a.trace_set, a.definition, ops, a.small);
  profile::ProfileRequest r{
      ops.target(in.definition, in.workloads, in.root,
                 a.baseline ? ops.baseline(a.definition, backend) : load_solution_file(a.solution), backend),
      a.solution,
      a.trace_set,
      self_executable(),
      a.out,
      EvalOptions{},
      !a.no_ncu,
      {}};
  std::filesystem::create_directories(r.out_dir);
  if (a.baseline) {  // ncu runs its own eval, which needs the solution as a file
    r.solution_file = r.out_dir / "solution.json";
    std::ofstream(r.solution_file) << write_solution(r.target.candidate);
  }
  r.options.backend = backend;
  r.options.lanes = lanes_of(a.scale_args, backend);  // the representatives dealt over them
  // One correctness trial: the report is a diagnosis, not a verdict (eval and the loop
  // check with several), and on MoE's 1.4 GB of inputs each trial costs seconds.
  r.options.correctness_trials = 1;
  // The report gives latency and its floor, not a speedup: timing the reference would
  // only double the time on large workloads.
  r.options.time_reference = false;
  r.options.protocol.trials = 1;
  r.options.protocol.warmup = 3;
  r.options.protocol.iterations = 20;
  return r;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw Error(Location{path.string(), 0, ""}, "cannot write the report");
}

int run(const ProfileArgs& a) {
  apply_sandbox_option(a.sandbox, "profile");
  const std::string backend = pick_backend(a.backend);
  // Opened before the profile, so that a bad archive folder fails in a second, not after.
  std::optional<archive::Archive> store;
  if (!a.archive.empty()) store = archive::Archive::open_or_create(a.archive);
  record::EvaluationContext context;
  context.started_at = archive::utc_now();
  profile::ProfileRequest request = make_request(a, backend);
  if (store) {
    record::pin_seed(request.options);  // so that `kharness rerun` repeats the evaluation exactly
    context.candidate_role = a.baseline ? "baseline" : "candidate";
    if (!a.baseline) context.candidate_json = archive::read_file_text(a.solution);
  }
  request.on_step = [](const std::string& line) { fmt::print(stderr, "kharness profile: {}\n", line); };
  fmt::print(stderr, "kharness profile: {} on {} ({} workloads), {} backend\n", request.target.candidate.name,
             a.definition, request.target.workloads.size(), backend);
  const profile::ProfileReport report = profile::run_profile(request);
  const auto md_path = request.out_dir / "profile.md";
  const auto json_path = request.out_dir / "profile.json";
  write_text(md_path, report.markdown());
  write_text(json_path, report.json().dump(2) + "\n");
  fmt::print(stderr, "wrote {} and {}\n", md_path.string(), json_path.string());
  nlohmann::ordered_json archived;
  if (store) {
    archived = archive_profile(*store, request, report, std::move(context));
    archived["dir"] = a.archive;
    fmt::print(stderr, "archived as run {} in {} (solution {}), with {} profile record(s)\n",
               archived["run_id"].get<std::int64_t>(), a.archive,
               archived["solution_content_id"].get<std::string>().substr(0, 12),
               archived["profiles"].get<std::size_t>());
  }
  if (a.json) {
    nlohmann::ordered_json out = report.json();
    if (store) out["archived"] = archived;
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("{}\n", report.markdown());
  }
  return 0;
}

// A member as text for the report: a string as it is, anything else as JSON, "?" when absent.
std::string text_of(const nlohmann::ordered_json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return "?";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// --rediagnose: the stored report with today's rules, as JSON (--json) or each regime's
// bottleneck and directions.
int run_rediagnosis(const ProfileArgs& a) {
  const std::optional<nlohmann::ordered_json> stored = parse_ordered_json(read_json_document(a.rediagnose));
  if (!stored) throw Error(Location{a.rediagnose, 0, ""}, "not valid JSON");
  const nlohmann::ordered_json report = profile::rediagnose(*stored, a.rediagnose);
  if (a.json) {
    fmt::print("{}\n", report.dump(2));
    return 0;
  }
  fmt::print("# Diagnosis again: {} on {}\n", text_of(report, "solution"), text_of(report, "definition"));
  for (const auto& r : report["regimes"]) {
    if (!r.is_object()) continue;
    fmt::print("\n## Regime {}: {}\n\n- bottleneck: **{}**: {}\n- directions:\n", text_of(r, "name"),
               text_of(r, "axes"), text_of(r, "bottleneck"), text_of(r, "bottleneck_reason"));
    const auto dirs = r.find("directions");
    if (dirs == r.end() || !dirs->is_array()) continue;
    for (const auto& d : *dirs) {
      if (d.is_object())
        fmt::print("  1. {} ({}): {}\n", text_of(d, "title"), text_of(d, "family"), text_of(d, "why"));
    }
  }
  return 0;
}

}  // namespace

void register_profile(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Diagnose a candidate per shape regime: latency, speed of light, ncu metrics, static analysis");
  cmd->add_option("--definition", args->definition, "Definition name");
  auto* solution =
      cmd->add_option("--solution", args->solution, "Solution JSON file")->check(CLI::ExistingFile);
  auto* baseline =
      cmd->add_flag("--baseline", args->baseline, "Profile kharness's baseline of the definition");
  solution->excludes(baseline);
  baseline->excludes(solution);
  cmd->add_option("--trace-set", args->trace_set, "FlashInfer-Trace folder with the definition and workloads")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--operators", args->operators, "Folder of kharness operators (references)");
  cmd->add_option("--backend", args->backend, "cuda, cpu, or auto")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd->add_option("--out", args->out, "Folder for profile.md, profile.json and ncu's files");
  cmd->add_flag("--small", args->small, "Use the operator's small CI workloads");
  cmd->add_flag("--no-ncu", args->no_ncu,
                "Skip Nsight Compute (latency, speed of light and static analysis only)");
  cmd->add_option("--archive", args->archive,
                  "Archive folder: record the representatives' run and the evidence (report, ncu pages) "
                  "with the candidate");
  cmd->add_flag("--json", args->json, "Print the report as JSON");
  cmd->add_option("--rediagnose", args->rediagnose,
                  "A profile.json this command wrote: diagnose its regimes again with the current rules "
                  "from the evidence it holds (no GPU, nothing run)")
      ->check(CLI::ExistingFile)
      ->excludes(solution)
      ->excludes(baseline);
  add_sandbox_option(cmd, args->sandbox);
  add_gpus_option(cmd, args->scale_args);
  cmd->callback([args, &exit_code] {
    if (!args->rediagnose.empty()) {
      guarded_run(exit_code, [&] { return run_rediagnosis(*args); });
      return;
    }
    if (args->definition.empty()) {
      fmt::print(stderr, "error: profile needs --definition NAME (or --rediagnose PROFILE_JSON)\n");
      exit_code = 2;
      return;
    }
    if (args->solution.empty() && !args->baseline) {
      fmt::print(stderr, "error: profile needs --solution FILE or --baseline\n");
      exit_code = 2;
      return;
    }
    guarded_run(exit_code, [&] { return run(*args); });
  });
}

}  // namespace kh::cli
