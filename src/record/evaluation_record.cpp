#include "record/evaluation_record.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <random>

#include "archive/relative_path.h"
#include "eval/device_peaks_json.h"
#include "eval/eval_options_json.h"
#include "eval/trace_record.h"
#include "trace/json_io.h"

namespace kh::record {
namespace fs = std::filesystem;
namespace {

using json = nlohmann::ordered_json;
using archive::BuildRecord;
using archive::RunRecord;
using archive::SolutionRecord;
using archive::TraceRecord;
using archive::WorkloadRecord;

json host_json() {
  json host = json::object();
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) host["name"] = name;
  utsname u{};
  if (uname(&u) == 0) {
    host["os"] = u.sysname;
    host["kernel"] = u.release;
    host["machine"] = u.machine;
  }
  return host;
}

// The traces' own environment block (hardware, libs), plus what the worker reported
// about the device and the host it ran on.
json environment(const SolutionEvaluation& result, const std::vector<Trace>& traces) {
  json env = json::object();
  if (!traces.empty() && traces.front().evaluation)
    env = traces.front().evaluation->raw.value("environment", json::object());
  if (!env.contains("hardware")) env["hardware"] = result.device.value("name", std::string("unknown"));
  env["device"] = result.device;
  if (result.lanes.size() > 1) {  // every device the workloads were dealt over (--gpus, Slurm tasks)
    env["lanes"] = json::array();
    for (const LaneDevice& lane : result.lanes) env["lanes"].push_back(lane.device);
  }
  env["host"] = host_json();
  return env;
}

BuildRecord build_record(const BuildResult& b, const std::string& compiler) {
  BuildRecord r;
  r.key = b.key;
  r.status = std::string(build_status_name(b.status));
  r.message = b.message;
  r.log = b.log;
  std::error_code ec;
  if (b.status == BuildResult::Status::ok && fs::is_regular_file(b.library, ec)) r.binary = b.library;
  r.seconds = b.seconds;
  r.cache_hit = b.cache_hit;
  r.compiler = compiler;
  return r;
}

WorkloadRecord workload_record(const EvaluationTarget& target, const Workload& w) {
  Trace line;
  line.definition = target.definition.name;
  line.workload = w;
  line.raw = json::object();
  WorkloadRecord r{write_trace_line(line), {}};
  for (const auto& [name, input] : w.inputs) {
    const auto* s = std::get_if<SafetensorsInput>(&input.source);
    if (s == nullptr) continue;
    const std::optional<fs::path> relative = archive::contained_path(s->path);
    if (!relative) continue;  // never read: the evaluation refused such a path
    const fs::path file = target.root / *relative;
    std::error_code ec;
    // A missing file failed the workload already, with a clear status; nothing to keep.
    if (fs::is_regular_file(file, ec)) r.files.push_back({s->path, file});
  }
  return r;
}

TraceRecord trace_record(const Trace& t, const WorkloadResult& w) {
  TraceRecord r{write_trace_line(t), {}, {}};
  if (w.latency) r.candidate_samples = w.latency->samples_ms;
  if (w.reference_latency) r.reference_samples = w.reference_latency->samples_ms;
  return r;
}

}  // namespace

RunRecord evaluation_record(const EvaluationTarget& target, const SolutionEvaluation& result,
                            const EvalOptions& options, const std::vector<Trace>& traces,
                            const EvaluationContext& context) {
  RunRecord r;
  r.origin = context.origin;
  r.rerun_of = context.rerun_of;
  r.definition_json = write_definition(target.definition);
  for (const Workload& w : target.workloads) r.workloads.push_back(workload_record(target, w));
  r.candidate = SolutionRecord{
      context.candidate_json.empty() ? write_solution(target.candidate) : context.candidate_json,
      context.candidate_role, context.lineage};
  r.reference = SolutionRecord{write_solution(target.reference), "reference", {}};
  r.build = build_record(result.candidate_build, result.compiler);
  r.reference_build = build_record(result.reference_build, result.compiler);
  r.environment = environment(result, traces);
  r.backend = options.backend;
  r.protocol = std::string(options.protocol.name());
  r.options_json = options_to_json(options);
  r.protocol_json =
      traces.empty() || !traces.front().evaluation
          ? json(nullptr)
          : traces.front().evaluation->raw.value("kharness", json::object()).value("protocol", json());
  r.checker = target.checker;
  r.tolerance_json = tolerance_to_json(target.tolerance);
  if (target.speed_of_light) r.speed_of_light_json = speed_of_light_to_json(*target.speed_of_light);
  if (result.peaks) r.peaks_json = peaks_json(*result.peaks);
  r.command_line = context.command_line;
  r.started_at = context.started_at;
  r.finished_at = context.finished_at;
  for (std::size_t i = 0; i < traces.size() && i < result.workloads.size(); ++i)
    r.traces.push_back(trace_record(traces[i], result.workloads[i]));
  return r;
}

void pin_seed(EvalOptions& options) {
  if (options.seed) return;
  std::random_device os;
  options.seed = (static_cast<std::uint64_t>(os()) << 32) ^ os();
}

}  // namespace kh::record
