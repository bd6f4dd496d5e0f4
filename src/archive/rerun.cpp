#include "archive/rerun.h"

#include <fstream>
#include <map>
#include <random>

#include "archive/document_rows.h"
#include "archive/eval_options_json.h"
#include "archive/evaluation_record.h"
#include "archive/recorded_run.h"
#include "archive/run_writer.h"
#include "archive/utc_time.h"
#include "eval/evaluator.h"
#include "eval/trace_record.h"
#include "trace/json_io.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

// The root that the recorded workloads' safetensors paths resolve against, rebuilt
// from blobs in a fresh folder and removed afterwards.
class InputRoot {
 public:
  InputRoot(const BlobStore& blobs, const std::vector<std::pair<std::string, std::string>>& files) {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("kh_rerun_" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path_);
    for (const auto& [relative, blob] : files) {
      const fs::path target = (path_ / relative).lexically_normal();
      if (target.string().rfind(path_.string(), 0) != 0)
        throw Error(Location{"", 0, "workload_files.path"}, "path leaves the set's root: '" + relative + "'");
      fs::create_directories(target.parent_path());
      std::error_code ec;
      fs::copy_file(blobs.path_of(blob), target, fs::copy_options::overwrite_existing, ec);
      if (ec) throw Error(Location{target.string(), 0, ""}, "cannot restore an input file: " + ec.message());
    }
  }
  ~InputRoot() {
    std::error_code ec;
    fs::remove_all(path_, ec);  // best effort: a leftover temp folder harms nothing
  }
  InputRoot(const InputRoot&) = delete;
  InputRoot& operator=(const InputRoot&) = delete;
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

EvaluationTarget target_of(const RecordedRun& run, const fs::path& root) {
  if (!run.reference_json) {
    throw Error(Location{"", 0, "run"},
                "run " + std::to_string(run.id) + " recorded no reference; cannot repeat it");
  }
  EvaluationTarget t;
  t.definition = parse_definition(run.definition_json, Location{"", 0, "definition"});
  for (std::size_t i = 0; i < run.workload_lines.size(); ++i) {
    t.workloads.push_back(parse_trace_line(run.workload_lines[i], Location{"", i + 1, "workloads"}).workload);
  }
  t.root = root;
  t.candidate = parse_solution(run.candidate_json, Location{"", 0, "candidate"});
  t.reference = parse_solution(*run.reference_json, Location{"", 0, "reference"});
  t.checker = run.checker;
  t.tolerance = tolerance_from_json(run.tolerance);
  if (!run.speed_of_light.is_null()) {
    t.speed_of_light = parse_speed_of_light(run.speed_of_light, Location{"", 0, "speed_of_light"});
  }
  return t;
}

EvalOptions options_of(const RecordedRun& run, const RerunOptions& o) {
  EvalOptions options = options_from_json(run.options);
  if (o.fresh_seeds) options.seed.reset();
  pin_seed(options);
  options.worker_executable = o.worker_executable;
  options.cache_dir = o.cache_dir;
  options.on_progress = o.on_progress;
  return options;
}

std::vector<RerunWorkload> compare(const RecordedRun& run, const std::vector<Trace>& traces) {
  std::map<std::string, const TraceFacts*> before;
  for (const TraceFacts& f : run.traces) before.emplace(f.workload_uuid, &f);
  std::vector<RerunWorkload> out;
  for (const Trace& t : traces) {
    RerunWorkload w{t.workload.uuid, std::nullopt, trace_facts(t)};
    if (const auto it = before.find(t.workload.uuid); it != before.end()) w.before = *it->second;
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace

bool RerunResult::statuses_equal() const {
  for (const RerunWorkload& w : workloads)
    if (!w.before || w.before->status != w.now.status) return false;
  return true;
}

RerunResult rerun(Archive& archive, RowId run_id, const RerunOptions& o) {
  const RecordedRun run = load_run(archive, run_id);
  const InputRoot root(archive.blobs(), run.input_files);
  const EvaluationTarget target = target_of(run, root.path());
  const EvalOptions options = options_of(run, o);

  RerunResult result;
  result.run_id = run_id;
  result.solution = target.candidate.name;
  result.definition = target.definition.name;
  result.backend = options.backend;
  result.protocol = std::string(protocol_name(options.protocol));
  result.seed = options.seed;
  result.same_seed = !o.fresh_seeds && run.options.contains("seed") && !run.options["seed"].is_null();

  const std::string started = utc_now();
  const SolutionEvaluation evaluation = evaluate_solution(target, options);
  std::vector<Trace> traces;
  for (const WorkloadResult& w : evaluation.workloads)
    traces.push_back(make_trace(target, evaluation, w, options));
  result.workloads = compare(run, traces);
  if (o.record) {
    EvaluationContext context;
    context.candidate_json = run.candidate_json;
    context.candidate_role = run.candidate_role;
    context.command_line = o.command_line;
    context.started_at = started;
    context.finished_at = utc_now();
    context.origin = "rerun";
    context.rerun_of = run_id;
    RunRecord record = evaluation_record(target, evaluation, options, traces, context);
    record.reference->json_text = *run.reference_json;  // the same reference row, byte for byte
    result.new_run_id = write_run(archive, record).run_id;
  }
  return result;
}

}  // namespace kh::archive
