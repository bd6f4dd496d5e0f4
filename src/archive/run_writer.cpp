#include "archive/run_writer.h"

#include "archive/document_rows.h"
#include "archive/index_writer.h"
#include "archive/run_seal.h"
#include "archive/solution_lookup.h"
#include "archive/write_transaction.h"

namespace kh::archive {
namespace {

struct StagedBlob {
  std::string sha256;
  std::int64_t size = 0;
  std::string kind;
};

struct StagedWorkload {
  WorkloadRow row;
  std::vector<std::pair<std::string, std::string>> files;  // path -> blob
};

struct StagedTrace {
  TraceRow row;
  const TraceRecord* record = nullptr;
};

// Everything parsed and every blob written, before the transaction starts.
struct StagedRun {
  std::vector<StagedBlob> blobs;
  DefinitionRow definition;
  std::vector<StagedWorkload> workloads;
  SolutionRow candidate;
  std::string parent;
  std::optional<SolutionRow> reference;
  std::optional<BuildRow> build, reference_build;
  std::string environment_json, hardware;
  RunRow run;
  std::vector<StagedTrace> traces;
};

std::string stage_blob(const BlobStore& store, StagedRun& staged, std::string_view bytes, std::string kind) {
  std::string sha = store.put(bytes);
  staged.blobs.push_back({sha, static_cast<std::int64_t>(bytes.size()), std::move(kind)});
  return sha;
}

std::optional<std::string> stage_optional(const BlobStore& store, StagedRun& staged,
                                          const std::optional<std::string>& bytes, std::string kind) {
  if (!bytes) return std::nullopt;
  return stage_blob(store, staged, *bytes, std::move(kind));
}

SolutionRow stage_solution(const BlobStore& store, StagedRun& staged, const SolutionRecord& s,
                           std::string_view what) {
  SolutionRow row = solution_row(s.json_text, Location{"", 0, std::string(what)});
  row.role = s.role;
  row.json_blob = stage_blob(store, staged, s.json_text, "solution");
  const Lineage& l = s.lineage;
  if (!l.agent.empty()) row.agent = l.agent;
  if (!l.hypothesis.empty()) row.hypothesis = l.hypothesis;
  if (!l.technique_family.empty()) row.technique_family = l.technique_family;
  row.prompt_blob = stage_optional(store, staged, l.prompt, "prompt");
  row.response_blob = stage_optional(store, staged, l.response, "response");
  return row;
}

BuildRow stage_build(const BlobStore& store, StagedRun& staged, const BuildRecord& b) {
  BuildRow row;
  row.key = b.key;
  row.status = b.status;
  row.message = b.message;
  row.log_blob = stage_blob(store, staged, b.log, "build_log");
  if (!b.binary.empty()) {
    row.binary_blob = store.put_file(b.binary);
    staged.blobs.push_back({*row.binary_blob, store.size_of(*row.binary_blob), "binary"});
  }
  row.seconds = b.seconds;
  row.cache_hit = b.cache_hit;
  row.compiler = b.compiler;
  return row;
}

void stage_workloads(const BlobStore& store, StagedRun& staged, const RunRecord& r) {
  for (std::size_t i = 0; i < r.workloads.size(); ++i) {
    const WorkloadRecord& w = r.workloads[i];
    StagedWorkload s{workload_document(w.line, Location{"", i + 1, "workloads"}).row, {}};
    for (const InputFile& f : w.files) {
      const std::string sha = store.put_file(f.file);
      staged.blobs.push_back({sha, store.size_of(sha), "input"});
      s.files.emplace_back(f.path, sha);
    }
    staged.workloads.push_back(std::move(s));
  }
}

void stage_traces(StagedRun& staged, const RunRecord& r) {
  for (std::size_t i = 0; i < r.traces.size(); ++i) {
    const TraceRecord& t = r.traces[i];
    const Location where{"", i + 1, "traces"};
    StagedTrace s{trace_row(t.line, where), &t};
    if (s.row.facts.definition != staged.definition.name) {
      throw Error(where, "trace of definition '" + s.row.facts.definition + "' in a run of '" +
                             staged.definition.name + "'");
    }
    s.row.sample_sets = static_cast<std::int64_t>(t.candidate_samples.size() + t.reference_samples.size());
    staged.traces.push_back(std::move(s));
  }
}

std::string run_status(const StagedRun& s) {
  if (s.build && s.build->status != "ok") return "build_failed";
  for (const StagedTrace& t : s.traces)
    if (t.row.facts.status != "PASSED") return "failed";
  return "passed";
}

RunRow run_row(const RunRecord& r) {
  RunRow row;
  row.origin = r.origin;
  row.rerun_of = r.rerun_of;
  row.backend = r.backend;
  row.protocol = r.protocol;
  row.protocol_json = r.protocol_json.dump();
  row.options_json = r.options_json.dump();
  row.checker = r.checker;
  row.tolerance_json = r.tolerance_json.dump();
  if (!r.speed_of_light_json.is_null()) row.speed_of_light_json = r.speed_of_light_json.dump();
  if (!r.peaks_json.is_null()) row.peaks_json = r.peaks_json.dump();
  row.command_line_json = nlohmann::ordered_json(r.command_line).dump();
  row.started_at = r.started_at;
  row.finished_at = r.finished_at;
  row.trace_count = static_cast<std::int64_t>(r.traces.size());
  return row;
}

StagedRun stage(const BlobStore& store, const RunRecord& r) {
  StagedRun s;
  s.definition = definition_row(r.definition_json, Location{"", 0, "definition"});
  stage_workloads(store, s, r);
  s.candidate = stage_solution(store, s, r.candidate, "candidate");
  s.parent = r.candidate.lineage.parent;
  if (r.reference) s.reference = stage_solution(store, s, *r.reference, "reference");
  if (r.build) s.build = stage_build(store, s, *r.build);
  if (r.reference_build) s.reference_build = stage_build(store, s, *r.reference_build);
  s.environment_json = r.environment.dump();
  s.hardware = r.environment.value("hardware", std::string("unknown"));
  stage_traces(s, r);
  s.run = run_row(r);
  s.run.status = run_status(s);
  return s;
}

void insert_traces(IndexWriter& w, const StagedRun& s, RowId run_id, RowId solution_id,
                   RowId environment_id) {
  for (const StagedTrace& t : s.traces) {
    TraceRow row = t.row;
    row.run_id = run_id;
    row.solution_id = solution_id;
    row.environment_id = environment_id;
    const std::optional<RowId> id = w.add_trace(row);
    if (!id) throw Error(Location{"", 0, "traces"}, "a trace of this run is already in the archive");
    for (std::size_t k = 0; k < t.record->candidate_samples.size(); ++k)
      w.add_samples(*id, "candidate", static_cast<std::int64_t>(k), t.record->candidate_samples[k]);
    for (std::size_t k = 0; k < t.record->reference_samples.size(); ++k)
      w.add_samples(*id, "reference", static_cast<std::int64_t>(k), t.record->reference_samples[k]);
  }
}

std::optional<RowId> insert_build(IndexWriter& w, std::optional<BuildRow> build, RowId solution_id) {
  if (!build) return std::nullopt;
  build->solution_id = solution_id;
  return w.add_build(*build);
}

WrittenRun insert(Database& db, const StagedRun& s) {
  IndexWriter w(db);
  for (const StagedBlob& b : s.blobs) w.add_blob(b.sha256, b.size, b.kind);
  RunRow run = s.run;
  run.definition_id = w.add_definition(s.definition);
  SolutionRow candidate = s.candidate;
  if (!s.parent.empty()) {
    candidate.parent_id = w.find_solution(s.parent);
    if (!candidate.parent_id) {
      throw Error(Location{"", 0, "lineage.parent"},
                  "parent solution " + s.parent + " is not in the archive");
    }
  }
  run.solution_id = w.add_solution(candidate);
  if (s.reference) run.reference_id = w.add_solution(*s.reference);
  run.build_id = insert_build(w, s.build, run.solution_id);
  if (run.reference_id) run.reference_build_id = insert_build(w, s.reference_build, *run.reference_id);
  run.environment_id = w.add_environment(s.environment_json, s.hardware);
  const RowId run_id = w.add_run(run);
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const RowId workload_id = w.add_workload(s.workloads[i].row);
    for (const auto& [path, blob] : s.workloads[i].files) w.add_workload_file(workload_id, path, blob);
    w.add_run_workload(run_id, static_cast<std::int64_t>(i), workload_id);
  }
  insert_traces(w, s, run_id, run.solution_id, *run.environment_id);
  seal_run(db, run_id);
  return WrittenRun{run_id, run.solution_id, s.candidate.content_id};
}

}  // namespace

void resolve_parent(Archive& archive, Lineage& lineage) {
  if (lineage.parent.empty() || IndexWriter(archive.db()).find_solution(lineage.parent)) return;
  // A person types the first characters of a content id, as with git.
  const std::vector<std::string> matches = content_ids_starting_with(archive, lineage.parent, 2);
  if (matches.size() != 1) {
    throw Error(
        Location{"", 0, "lineage.parent"},
        "parent solution " + lineage.parent +
            (matches.empty() ? " is not in the archive" : " is ambiguous: give more of its content id"));
  }
  lineage.parent = matches.front();
}

WrittenRun write_run(Archive& archive, const RunRecord& record) {
  const StagedRun staged = stage(archive.blobs(), record);
  return write_transaction(archive.db(), [&] { return insert(archive.db(), staged); });
}

}  // namespace kh::archive
