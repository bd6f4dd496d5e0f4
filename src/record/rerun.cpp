#include "record/rerun.h"

#include <fstream>
#include <map>
#include <random>

#include "archive/document_rows.h"
#include "archive/recorded_run.h"
#include "archive/relative_path.h"
#include "eval/eval_options_json.h"
#include "record/recorded_evaluation.h"
#include "trace/json_io.h"

namespace kh::record {
using archive::BlobStore;
using archive::RecordedRun;
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
      const fs::path target = path_ / archive::require_contained_path(relative, "workload_files.path");
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
    RerunWorkload w{t.workload.uuid, std::nullopt, archive::trace_facts(t)};
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

RerunResult rerun(archive::Archive& archive, RowId run_id, const RerunOptions& o) {
  const RecordedRun run = archive::load_run(archive, run_id);
  const InputRoot root(archive.blobs(), run.input_files);
  const EvaluationTarget target = target_of(run, root.path());
  const EvalOptions options = options_of(run, o);

  RerunResult result;
  result.run_id = run_id;
  result.solution = target.candidate.name;
  result.definition = target.definition.name;
  result.backend = options.backend;
  result.protocol = std::string(options.protocol.name());
  result.seed = options.seed;
  result.same_seed = !o.fresh_seeds && run.options.contains("seed") && !run.options["seed"].is_null();

  RecordRequest request;
  if (o.record) {
    request.store = &archive;
    request.context.candidate_json = run.candidate_json;
    request.context.candidate_role = run.candidate_role;
    request.context.command_line = o.command_line;
    request.context.origin = "rerun";
    request.context.rerun_of = run_id;
    request.adjust = [&run](archive::RunRecord& record) {
      record.reference->json_text = *run.reference_json;  // the same reference row, byte for byte
    };
  }
  const RecordedEvaluation evaluated = evaluate_and_record(target, options, std::move(request));
  result.workloads = compare(run, evaluated.traces);
  if (evaluated.written) result.new_run_id = evaluated.written->run_id;
  return result;
}

}  // namespace kh::record
