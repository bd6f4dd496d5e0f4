#include "cli/eval_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "archive/run_writer.h"
#include "archive/set_files.h"
#include "archive/utc_time.h"
#include "cli/backend_choice.h"
#include "cli/eval_table.h"
#include "cli/executor_options.h"
#include "cli/guarded_run.h"
#include "cli/invocation.h"
#include "cli/protocol_options.h"
#include "cli/sandbox_option.h"
#include "cli/workload_source.h"
#include "device/backend.h"
#include "error/error.h"
#include "eval/eval_invocation.h"
#include "eval/evaluator.h"
#include "eval/operator_library.h"
#include "eval/python/python_solution.h"
#include "eval/trace_record.h"
#include "eval/wire/worker_entry.h"
#include "eval/worker_side/measurement_service.h"
#include "record/recorded_evaluation.h"
#include "scale/eval_task.h"
#include "trace/json_io.h"
#include "trace/trace_set.h"

namespace kh::cli {
namespace {

struct EvalArgs {
  std::string trace_set;
  std::string definition;
  std::string solution;
  std::vector<std::string> workloads;
  ProtocolArgs protocol;  // --protocol and its settings
  std::string backend = "auto";
  std::string reference = "auto";
  std::string output;
  std::string arch;
  std::string operators;
  bool json = false;
  bool small = false;
  bool official_status = false;
  bool no_reference_timing = false;
  bool no_timing = false;
  bool baseline = false;
  bool remeasure_reference = false;
  int max_consecutive_failures = 3;
  int trials = 3;
  double timeout_s = 300;
  std::optional<double> atol, rtol, matched_ratio;
  std::optional<std::uint64_t> seed;
  std::string archive;  // record the run there
  archive::Lineage lineage;
  std::string prompt_file, response_file;
  std::string sandbox = "best";
  ExecutorArgs scale_args;      // --gpus, --executor and the Slurm options
  scale::EvalTaskRequest task;  // --job: one task of a distributed batch
};

// A workload by its uuid or a unique prefix of it (the tables print 8 characters).
const Workload& workload_by_uuid(const std::vector<Workload>& workloads, const std::string& uuid) {
  const Workload* found = nullptr;
  for (const Workload& w : workloads) {
    if (w.uuid == uuid) return w;
    if (!uuid.empty() && w.uuid.starts_with(uuid)) {
      if (found != nullptr) {
        throw Error(
            Location{"", 0, "--workload"},
            fmt::format("'{}' is a prefix of more than one workload ({}, {})", uuid, found->uuid, w.uuid));
      }
      found = &w;
    }
  }
  if (found == nullptr) throw Error(Location{"", 0, "--workload"}, fmt::format("no workload '{}'", uuid));
  return *found;
}

LoadedInputs load_inputs(const EvalArgs& a, const OperatorLibrary& ops) {
  LoadedInputs in = load_definition_workloads(a.trace_set, a.definition, ops, a.small);
  if (!a.workloads.empty()) {
    std::vector<Workload> chosen;
    for (const std::string& uuid : a.workloads) chosen.push_back(workload_by_uuid(in.workloads, uuid));
    in.workloads = std::move(chosen);
  }
  return in;
}

EvalOptions make_options(const EvalArgs& a, const std::string& backend, const OperatorEntry* op) {
  EvalOptions o;
  o.backend = backend;
  o.arch = a.arch;
  o.protocol = protocol_from(a.protocol, op, false);
  o.correctness_trials = a.trials;
  o.timeout = std::chrono::seconds(static_cast<long>(a.timeout_s));
  o.time_reference = !a.no_reference_timing;
  o.time_candidate = !a.no_timing;
  o.seed = a.seed;
  o.max_consecutive_failures = a.max_consecutive_failures;
  o.remeasure_reference = a.remeasure_reference;
  return o;
}

Tolerance tolerance_for(const EvalArgs& a, const OperatorEntry* op) {
  Tolerance t = op && op->tolerance ? *op->tolerance : Tolerance{};
  if (a.atol) t.atol = *a.atol;
  if (a.rtol) t.rtol = *a.rtol;
  if (a.matched_ratio) t.required_matched_ratio = *a.matched_ratio;
  return t;
}

void progress_line(const EvalProgress& p) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  const int width = 30;
  const int filled = p.total ? static_cast<int>(width * p.done / p.total) : width;
  fmt::print(stderr, "{}[{}{}] {}/{} {} {}{}", tty ? "\r" : "",
             std::string(static_cast<std::size_t>(filled), '#'),
             std::string(static_cast<std::size_t>(width - filled), '.'), p.done, p.total,
             p.workload.substr(0, 8), p.status, tty ? (p.done == p.total ? "\n" : "   ") : "\n");
  std::fflush(stderr);
}

// The solution and, when it is archived, its exact text (so the archive keeps the bytes
// that were evaluated, not a re-serialisation).
Solution read_candidate(const EvalArgs& a, const OperatorLibrary& ops, const std::string& backend,
                        std::string& text) {
  if (a.baseline) return ops.baseline(a.definition, backend);
  text = archive::read_file_text(a.solution);
  return parse_solution(text, Location{a.solution, 0, ""});
}

archive::Lineage lineage_of(const EvalArgs& a, archive::Lineage l) {
  if (!a.prompt_file.empty()) l.prompt = archive::read_file_text(a.prompt_file);
  if (!a.response_file.empty()) l.response = archive::read_file_text(a.response_file);
  return l;
}

nlohmann::ordered_json archived_json(const EvalArgs& a, const archive::WrittenRun& w) {
  fmt::print(stderr, "archived as run {} in {} (solution {})\n", w.run_id, a.archive,
             w.solution_content_id.substr(0, 12));
  return {{"dir", a.archive}, {"run_id", w.run_id}, {"solution_content_id", w.solution_content_id}};
}

// ", 2 lanes" or ", slurm executor": where the evaluation runs, when not simply here.
std::string where_text(const EvalArgs& a, const EvalOptions& o) {
  if (a.scale_args.executor != "local") return ", " + a.scale_args.executor + " executor";
  return o.lanes.size() > 1 ? fmt::format(", {} lanes", o.lanes.size()) : std::string();
}

int run_eval(const EvalArgs& a) {
  apply_sandbox_option(a.sandbox, "eval");
  const OperatorLibrary ops = operator_library(a.operators);
  const std::string backend = pick_backend(a.backend);
  LoadedInputs in = load_inputs(a, ops);
  const OperatorEntry* op = ops.find(a.definition);
  // Opened before the evaluation, so that a bad archive folder fails in a second, not after.
  std::optional<archive::Archive> store;
  archive::Lineage lineage = a.lineage;
  if (!a.archive.empty()) {
    store = archive::Archive::open_or_create(a.archive);
    archive::resolve_parent(*store, lineage);
  }
  record::EvaluationContext context;
  context.started_at = archive::utc_now();
  context.candidate_role = a.baseline ? "baseline" : "candidate";
  if (store) context.lineage = lineage_of(a, lineage);  // reads the prompt and response files
  context.command_line = invocation();
  Solution candidate = read_candidate(a, ops, backend, context.candidate_json);
  if (candidate.definition != in.definition.name) {
    fmt::print(stderr,
               "error: {}: solution '{}' is a solution of definition '{}', not of '{}' (--definition)\n",
               a.solution, candidate.name, candidate.definition, in.definition.name);
    return 1;
  }
  EvaluationTarget target = ops.target(in.definition, in.workloads, in.root, std::move(candidate), backend);
  if (a.reference == "pytorch") target.reference = definition_reference(in.definition);
  if (a.reference == "native") target.reference = ops.reference(in.definition.name, backend);
  target.tolerance = tolerance_for(a, op);
  EvalOptions options = make_options(a, backend, op);
  // Pinned so that `kharness rerun` can repeat it exactly, and so that every Slurm task
  // of it draws from the same base.
  if (store || a.scale_args.executor != "local") record::pin_seed(options);
  if (a.scale_args.executor == "local") options.lanes = lanes_of(a.scale_args, backend);
  if (!a.json && a.scale_args.executor == "local") options.on_progress = progress_line;
  const std::unique_ptr<scale::Executor> executor =
      scale::make_executor(executor_settings(a.scale_args, backend));
  fmt::print(stderr, "kharness eval: {} on {} workload(s), {} backend{}, reference {}, {}\n",
             target.candidate.name, target.workloads.size(), backend, where_text(a, options),
             target.reference.name,
             options.time_candidate ? fmt::format("{} protocol", options.protocol.name())
                                    : std::string("correctness only (no timing)"));
  std::ofstream out;
  if (!a.output.empty()) {
    out.open(a.output, std::ios::app);
    if (!out) throw Error(Location{a.output, 0, ""}, "cannot open for writing");
    // Each trace is written and flushed as its workload finishes: a run that is
    // interrupted (timeout, Ctrl-C) keeps every workload it completed.
    options.on_workload = [&](const SolutionEvaluation& so_far, const WorkloadResult& w) {
      out << write_trace_line(make_trace(target, so_far, w, options, TraceStyle{a.official_status})) << "\n";
      out.flush();
      if (!out) throw Error(Location{a.output, 0, ""}, "write failed");
    };
  }
  record::RecordRequest request{
      store ? &*store : nullptr, std::move(context), TraceStyle{a.official_status}, {}};
  const record::RecordedEvaluation recorded = record::evaluate_and_record(
      target, options, std::move(request), [&](const EvaluationTarget& t, const EvalOptions& o) {
        return std::move(executor->run({scale::EvaluationJob{t.candidate.name, t, o}}).front());
      });
  const SolutionEvaluation& result = recorded.result;
  const std::vector<Trace>& traces = recorded.traces;
  const nlohmann::ordered_json archived =
      recorded.written ? archived_json(a, *recorded.written) : nlohmann::ordered_json();
  if (a.json) {
    print_eval_json(target, result, traces, archived, executor->report());
  } else {
    print_eval_table(target, result);
  }
  return result.all_passed() ? 0 : 1;
}

// One task of a job file: the task's share of an evaluation, on this node's GPUs.
int run_task(EvalArgs& a) {
  if (a.task.out_dir.empty()) {
    fmt::print(stderr, "error: --job needs --task-out DIR\n");
    return 2;
  }
  a.task.gpus = a.scale_args.gpus;
  try {
    apply_sandbox_option(a.sandbox, "eval");  // the submitter's, on the task's command line
    return scale::run_eval_task(a.task);
  } catch (const Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
}

}  // namespace

void register_eval(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(eval_flag::kCommand,
                                     "Build, check and time a solution on every workload of a definition");
  cmd->add_option(eval_flag::kTraceSet, args->trace_set,
                  "FlashInfer-Trace folder with the definition and its workloads")
      ->check(CLI::ExistingDirectory);
  cmd->add_option(eval_flag::kDefinition, args->definition, "Definition name (required but with --job)");
  auto* solution =
      cmd->add_option(eval_flag::kSolution, args->solution, "Solution JSON file")->check(CLI::ExistingFile);
  auto* baseline = cmd->add_flag("--baseline", args->baseline,
                                 "Evaluate kharness's baseline of the definition for the chosen backend");
  solution->excludes(baseline);
  baseline->excludes(solution);
  cmd->add_option(eval_flag::kWorkload, args->workloads,
                  "Only these workloads: uuid or a unique prefix of it (repeatable)");
  add_protocol_options(cmd, args->protocol, true);
  cmd->add_option(eval_flag::kBackend, args->backend, "cuda, cpu, or auto (cuda where a GPU is present)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd->add_option("--reference", args->reference,
                  "auto (kharness's own where it has one, else the definition's PyTorch reference), "
                  "native, or pytorch")
      ->check(CLI::IsMember({"auto", "native", "pytorch"}));
  cmd->add_option(eval_flag::kTrials, args->trials, "Correctness trials, each with a fresh seed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--atol", args->atol, "Absolute tolerance (overrides the operator's)");
  cmd->add_option("--rtol", args->rtol, "Relative tolerance (overrides the operator's)");
  cmd->add_option("--matched-ratio", args->matched_ratio, "Share of elements that must match")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--timeout", args->timeout_s, "Seconds one worker request may take before TIMEOUT")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", args->seed, "Base seed, to repeat a run exactly (default: fresh seeds)");
  cmd->add_option("--arch", args->arch, "nvcc arch, e.g. sm_90a (default: from the device)");
  cmd->add_option("--operators", args->operators, "Folder of kharness operators (references)");
  cmd->add_option("-o,--output", args->output, "Append the traces to this JSONL file");
  cmd->add_flag("--json", args->json, "Print the results as JSON");
  cmd->add_flag("--small", args->small, "Use the operator's small CI workloads");
  cmd->add_flag("--official-status", args->official_status,
                "Write REWARD_HACK as RUNTIME_ERROR (upstream statuses)");
  cmd->add_flag("--no-reference-timing", args->no_reference_timing, "Do not time the reference (no speedup)");
  cmd->add_flag("--remeasure-reference", args->remeasure_reference,
                "Time the reference again instead of reusing its cached latency (and refresh the cache)");
  cmd->add_option("--max-consecutive-failures", args->max_consecutive_failures,
                  "After this many TIMEOUT or crash results in a row, report the rest unrun (0: run all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag(eval_flag::kNoTiming, args->no_timing,
                "Check correctness only: no latency (a profiler's session, where only the calls matter)");
  cmd->add_option("--archive", args->archive,
                  "Record the run (solution, builds, traces, samples, environment) in this archive folder");
  cmd->add_option("--parent", args->lineage.parent,
                  "Lineage: content id of the parent solution (archived), or a unique prefix of it");
  cmd->add_option("--agent", args->lineage.agent, "Lineage: the agent that wrote the solution");
  cmd->add_option("--hypothesis", args->lineage.hypothesis, "Lineage: the hypothesis it tests");
  cmd->add_option("--technique", args->lineage.technique_family, "Lineage: its family of technique");
  cmd->add_option("--prompt", args->prompt_file, "Lineage: file holding the prompt (archived as a blob)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--response", args->response_file, "Lineage: file holding the agent's response (archived)")
      ->check(CLI::ExistingFile);
  add_sandbox_option(cmd, args->sandbox);
  add_executor_options(cmd, args->scale_args);
  cmd->add_option("--job", args->task.job,
                  "Run one task of a distributed batch's job file (what Slurm tasks run)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--task", args->task.task, "With --job: the task's index");
  cmd->add_option("--task-out", args->task.out_dir, "With --job: the folder for the task's result");
  cmd->callback([args, &exit_code] {
    if (!args->task.job.empty()) {
      exit_code = run_task(*args);
      return;
    }
    if (args->definition.empty()) {
      fmt::print(stderr, "error: eval needs --definition NAME\n");
      exit_code = 2;
      return;
    }
    if (args->solution.empty() && !args->baseline) {
      fmt::print(stderr, "error: eval needs --solution FILE or --baseline\n");
      exit_code = 2;
      return;
    }
    guarded_run(exit_code, [&] { return run_eval(*args); });
  });
}

void register_worker(CLI::App& app, int& exit_code) {
  auto backend = std::make_shared<std::string>("cpu");
  CLI::App* cmd = app.add_subcommand(kWorkerSubcommand, "Measurement worker (started by eval)");
  cmd->group("");  // hidden from --help
  cmd->add_option("--backend", *backend, "cuda or cpu");
  cmd->callback([backend, &exit_code] { exit_code = run_measurement_worker(*backend); });
}

}  // namespace kh::cli
