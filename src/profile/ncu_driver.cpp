#include "profile/ncu_driver.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "base/executable_lookup.h"
#include "base/jail/sandbox_mode.h"
#include "base/process_runner.h"
#include "error/error.h"
#include "eval/eval_invocation.h"
#include "eval/worker_side/profiler_ranges.h"
#include "profile/ncu_metrics.h"

namespace kh::profile {

std::optional<std::filesystem::path> find_ncu() {
  return detail::find_compiler("KHARNESS_NCU", "ncu", {"/usr/local/cuda/bin/ncu"});
}

std::vector<std::string> ncu_command(const std::filesystem::path& ncu, const NcuRequest& r) {
  // ncu and the eval under it run in work_dir (run_ncu), so a path relative to ours would name
  // another file there: every path they are given is absolute.
  const auto absolute = [](const std::filesystem::path& p) {
    return p.empty() ? p : std::filesystem::absolute(p);
  };
  EvalInvocation eval;
  eval.definition = r.definition;
  eval.solution = absolute(r.solution);
  eval.backend = "cuda";
  eval.correctness_trials = 2;  // the second call of each workload is the one profiled
  eval.timing = false;
  // The workers under ncu keep kharness's user (the GPU's counters need it) and talk to
  // ncu: see SandboxMode.
  eval.sandbox = sandbox_mode() == SandboxMode::off ? "off" : "profiled";
  eval.workloads = r.workloads;
  eval.trace_set = absolute(r.trace_set);
  eval.gpus = r.gpus;
  std::vector<std::string> argv{ncu.string(),
                                "--clock-control",
                                "none",
                                "--target-processes",
                                "all",
                                "--nvtx",
                                "--nvtx-include",
                                call_range_name(true, 2) + "/",
                                "--metrics",
                                fmt::format("{}", fmt::join(ncu_metric_names(), ",")),
                                "--csv",
                                "--page",
                                "raw",
                                "--log-file",
                                (absolute(r.work_dir) / "ncu.csv").string(),
                                absolute(r.kharness).string()};
  const std::vector<std::string> eval_arguments = eval.arguments();
  argv.insert(argv.end(), eval_arguments.begin(), eval_arguments.end());
  return argv;
}

NcuRun run_ncu(const NcuRequest& r) {
  NcuRun run;
  const auto ncu = find_ncu();
  if (!ncu) {
    run.note = "ncu not found (set KHARNESS_NCU or PATH): no hardware metrics";
    return run;
  }
  std::filesystem::create_directories(r.work_dir);
  run.command = ncu_command(*ncu, r);
  // The log is written as ncu runs: a session that hangs and is killed, by its limit or
  // by the user, still shows how far it got (which workers ncu connected to, which
  // workloads the eval under it finished).
  std::ofstream log(r.work_dir / "ncu.log");
  ProcessSpec spec;
  spec.argv = run.command;
  spec.cwd = r.work_dir;
  spec.role = "ncu";
  RunOptions options;
  options.timeout = r.timeout;
  options.on_output = [&log](std::string_view chunk) {
    log.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    log.flush();
  };
  const ProcessRun p = run_process(std::move(spec), options);
  run.seconds = p.seconds;
  std::ifstream csv(r.work_dir / "ncu.csv");
  if (!csv) {
    run.note = fmt::format("ncu wrote no CSV (exit {}{}): see {}", p.exit_code(),
                           p.timed_out ? ", timed out" : "", (r.work_dir / "ncu.log").string());
    return run;
  }
  std::stringstream text;
  text << csv.rdbuf();
  try {
    run.kernels = parse_ncu_raw_csv(text.str());
  } catch (const Error& e) {
    // ncu writes its own errors into the CSV (e.g. "==ERROR== The application returned an error
    // code (2)" when the eval under it failed): that line says more than the parse error.
    std::string ncu_error;
    for (std::string line; ncu_error.empty() && std::getline(text, line);)
      if (line.rfind("==ERROR==", 0) == 0) ncu_error = line;
    text.clear();
    run.note = ncu_error.empty() ? fmt::format("ncu's CSV did not parse: {} (exit {}): see {}", e.what(),
                                               p.exit_code(), (r.work_dir / "ncu.log").string())
                                 : fmt::format("ncu failed (exit {}): {}: see {}", p.exit_code(), ncu_error,
                                               (r.work_dir / "ncu.log").string());
    return run;
  }
  if (run.kernels.empty()) {
    run.note =
        fmt::format("ncu profiled no launch in range {} (exit {}{}): see {}", call_range_name(true, 2),
                    p.exit_code(), p.timed_out ? ", timed out" : "", (r.work_dir / "ncu.log").string());
  }
  return run;
}

std::vector<KernelMetrics> kernels_of_workload(const std::vector<KernelMetrics>& kernels,
                                               std::string_view workload_uuid) {
  const std::string name = workload_range_name(workload_uuid);
  std::vector<KernelMetrics> out;
  for (const KernelMetrics& k : kernels) {
    // The name ends at a ':' (the next field of the range) or at the end of the column.
    const std::size_t at = k.nvtx_stack.find(name);
    if (at == std::string::npos) continue;
    const std::size_t end = at + name.size();
    if (end == k.nvtx_stack.size() || k.nvtx_stack[end] == ':' || k.nvtx_stack[end] == '"') out.push_back(k);
  }
  return out;
}

}  // namespace kh::profile
