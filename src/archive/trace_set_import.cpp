#include "archive/trace_set_import.h"

#include <chrono>
#include <future>
#include <map>
#include <nlohmann/json.hpp>

#include "archive/document_rows.h"
#include "archive/index_writer.h"
#include "archive/relative_path.h"
#include "archive/set_files.h"
#include "archive/trace_line_parser.h"
#include "archive/utc_time.h"
#include "archive/write_transaction.h"
#include "trace/bounded_file.h"
#include "trace/input_limits.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

struct PendingSolution {
  SolutionRow row;
  std::int64_t size = 0;
};

struct PendingWorkload {
  WorkloadRow row;
  std::vector<std::pair<std::string, std::string>> files;  // path -> blob
  std::vector<std::int64_t> file_sizes;
};

class SetImporter {
 public:
  SetImporter(Archive& archive, fs::path root, const ImportOptions& options, ImportReport& report)
      : archive_(archive),
        root_(std::move(root)),
        options_(options),
        report_(report),
        writer_(archive.db()) {}

  void run();

 private:
  void begin_import();
  void finish_import();
  void import_definitions(const std::vector<SetFile>& files);
  void import_solutions(const std::vector<SetFile>& files);
  void import_workloads(const SetFile& file);
  void import_traces(const SetFile& file);
  std::optional<std::string> read_or_report(const SetFile& file);
  // The file's lines, without those over the jsonl_line_bytes limit (each a problem).
  std::vector<TextLine> bounded_lines(const SetFile& file, const std::optional<std::string>& text);
  void commit_workloads(const std::vector<PendingWorkload>& batch);
  void commit_traces(const std::vector<TraceRow>& batch);
  void load_solution_ids();
  PendingWorkload stage_workload(const SetFile& file, const TextLine& line);
  void problem(const Error& e, Severity severity = Severity::error) {
    report_.problems.push_back(diagnostic_from(e, severity));
  }
  void progress(const std::string& file, std::uintmax_t bytes_in_file);

  Archive& archive_;
  fs::path root_;
  const ImportOptions& options_;
  ImportReport& report_;
  IndexWriter writer_;
  RowId import_id_ = 0;
  std::uintmax_t bytes_total_ = 0;
  std::uintmax_t bytes_before_ = 0;                            // of the files already read
  std::map<std::string, RowId, std::less<>> solution_ids_;     // definition '\n' name -> newest id
  std::map<std::string, RowId, std::less<>> environment_ids_;  // environment JSON -> id
};

std::string solution_key(std::string_view definition, std::string_view name) {
  return std::string(definition) + '\n' + std::string(name);
}

void SetImporter::run() {
  std::vector<SetFile> files = list_set_files(root_, report_.problems);
  std::vector<SetFile> definitions, solutions;
  for (const SetFile& f : files) {
    bytes_total_ += f.size;
    if (f.kind == FileKind::definition) definitions.push_back(f);
    if (f.kind == FileKind::solution) solutions.push_back(f);
  }
  begin_import();
  import_definitions(definitions);
  import_solutions(solutions);
  load_solution_ids();
  for (const SetFile& f : files) {
    if (f.kind == FileKind::workloads) import_workloads(f);
    if (f.kind == FileKind::traces) import_traces(f);
  }
  finish_import();
}

void SetImporter::begin_import() {
  Statement insert = archive_.db().prepare("INSERT INTO imports(source, started_at) VALUES (?, ?)");
  import_id_ = write_transaction(archive_.db(), [&] {
    insert.bind(1, fs::absolute(root_).lexically_normal().string()).bind(2, utc_now());
    insert.run();
    return archive_.db().last_insert_rowid();
  });
}

void SetImporter::finish_import() {
  Database& db = archive_.db();
  if (report_.added() == 0) {
    // Nothing new: leave no trace of the attempt, so importing twice adds nothing.
    Statement drop = db.prepare("DELETE FROM imports WHERE id = ?");
    write_transaction(db, [&] { drop.bind(1, import_id_).run(); });
    return;
  }
  const auto count = [](const KindCount& c) {
    return nlohmann::ordered_json{{"read", c.read}, {"added", c.added}};
  };
  const nlohmann::ordered_json counts = {
      {"definitions", count(report_.definitions)}, {"solutions", count(report_.solutions)},
      {"workloads", count(report_.workloads)},     {"traces", count(report_.traces)},
      {"input_files", count(report_.input_files)}, {"problems", report_.problems.size()}};
  Statement update = db.prepare("UPDATE imports SET finished_at = ?, counts_json = ? WHERE id = ?");
  write_transaction(db, [&] { update.bind(1, utc_now()).bind(2, counts.dump()).bind(3, import_id_).run(); });
  report_.import_id = import_id_;
}

void SetImporter::progress(const std::string& file, std::uintmax_t bytes_in_file) {
  if (!options_.on_progress) return;
  const std::int64_t documents =
      report_.definitions.read + report_.solutions.read + report_.workloads.read + report_.traces.read;
  options_.on_progress({file, bytes_before_ + bytes_in_file, bytes_total_, documents});
}

void SetImporter::import_definitions(const std::vector<SetFile>& files) {
  std::vector<DefinitionRow> rows;
  for (const SetFile& f : files) {
    try {
      DefinitionRow row = definition_row(read_file_text(f.path), Location{f.path.string(), 0, ""});
      row.source = {f.relative, std::nullopt, import_id_};
      rows.push_back(std::move(row));
    } catch (const Error& e) {
      problem(e);
    }
    bytes_before_ += f.size;
  }
  report_.definitions.read += static_cast<std::int64_t>(rows.size());
  report_.definitions.added += write_transaction(archive_.db(), [&] {
    std::int64_t added = 0;
    for (const DefinitionRow& r : rows) {
      writer_.add_definition(r);
      added += writer_.last_added();
    }
    return added;
  });
  progress("definitions", 0);
}

void SetImporter::import_solutions(const std::vector<SetFile>& files) {
  std::vector<PendingSolution> rows;
  for (const SetFile& f : files) {
    try {
      const std::string text = read_file_text(f.path);
      PendingSolution p{solution_row(text, Location{f.path.string(), 0, ""}),
                        static_cast<std::int64_t>(text.size())};
      p.row.json_blob = archive_.blobs().put(text);  // before the transaction that names it
      p.row.source = {f.relative, std::nullopt, import_id_};
      rows.push_back(std::move(p));
    } catch (const Error& e) {
      problem(e);
    }
    bytes_before_ += f.size;
  }
  report_.solutions.read += static_cast<std::int64_t>(rows.size());
  report_.solutions.added += write_transaction(archive_.db(), [&] {
    std::int64_t added = 0;
    for (const PendingSolution& p : rows) {
      writer_.add_blob(p.row.json_blob, p.size, "solution");
      writer_.add_solution(p.row);
      added += writer_.last_added();
    }
    return added;
  });
  progress("solutions", 0);
}

void SetImporter::load_solution_ids() {
  Statement s = archive_.db().prepare("SELECT id, definition, name FROM solutions ORDER BY id");
  while (s.step()) solution_ids_[solution_key(s.column_text(1), s.column_text(2))] = s.column_int(0);
}

PendingWorkload SetImporter::stage_workload(const SetFile& file, const TextLine& line) {
  WorkloadDocument doc = workload_document(line.text, Location{file.path.string(), line.number, ""});
  PendingWorkload p{std::move(doc.row), {}, {}};
  p.row.source = {file.relative, static_cast<std::int64_t>(line.number), import_id_};
  for (const std::string& path : doc.input_paths) {
    const std::optional<fs::path> relative = contained_path(path);
    if (!relative) {
      problem(Error(Location{file.path.string(), line.number, "workload.inputs"},
                    "safetensors path '" + path + "' leaves the set's folder; not archived"),
              Severity::warning);
      continue;
    }
    const fs::path input = root_ / *relative;
    std::error_code ec;
    if (!fs::is_regular_file(input, ec)) {
      problem(Error(Location{file.path.string(), line.number, "workload.inputs"},
                    "safetensors file '" + path + "' is not in the set; not archived"),
              Severity::warning);
      continue;
    }
    const std::string blob = archive_.blobs().put_file(input);
    p.files.emplace_back(path, blob);
    p.file_sizes.push_back(archive_.blobs().size_of(blob));
  }
  return p;
}

void SetImporter::commit_workloads(const std::vector<PendingWorkload>& batch) {
  struct Added {
    std::int64_t workloads = 0, files = 0;
  };
  const Added added = write_transaction(archive_.db(), [&] {
    Added a;
    for (const PendingWorkload& p : batch) {
      const RowId id = writer_.add_workload(p.row);
      a.workloads += writer_.last_added();
      for (std::size_t i = 0; i < p.files.size(); ++i) {
        writer_.add_blob(p.files[i].second, p.file_sizes[i], "input");
        writer_.add_workload_file(id, p.files[i].first, p.files[i].second);
        a.files += writer_.last_added();
      }
    }
    return a;
  });
  report_.workloads.read += static_cast<std::int64_t>(batch.size());
  report_.workloads.added += added.workloads;
  for (const PendingWorkload& p : batch)
    report_.input_files.read += static_cast<std::int64_t>(p.files.size());
  report_.input_files.added += added.files;
}

void SetImporter::commit_traces(const std::vector<TraceRow>& batch) {
  // Environment ids learnt inside a transaction are kept only once it commits: a retried
  // attempt must not reuse ids of rows that were rolled back.
  auto [added, environments] = write_transaction(archive_.db(), [&] {
    std::map<std::string, RowId, std::less<>> known = environment_ids_;
    std::int64_t n = 0;
    for (TraceRow row : batch) {
      const std::string& env = row.facts.environment_json;
      if (!env.empty()) {
        auto it = known.find(env);
        if (it == known.end())
          it = known.emplace(env, writer_.add_environment(env, row.facts.hardware)).first;
        row.environment_id = it->second;
      }
      n += writer_.add_trace(row).has_value();
    }
    return std::make_pair(n, std::move(known));
  });
  environment_ids_ = std::move(environments);
  report_.traces.read += static_cast<std::int64_t>(batch.size());
  report_.traces.added += added;
}

std::vector<TextLine> SetImporter::bounded_lines(const SetFile& file,
                                                 const std::optional<std::string>& text) {
  std::vector<TextLine> lines;
  if (!text) return lines;
  for (TextLine& line : jsonl_lines(*text)) {
    if (line.text.size() > input_limits().jsonl_line_bytes)
      problem(Error(Location{file.path.string(), line.number, ""}, line_too_long_reason(line.text.size())));
    else
      lines.push_back(line);
  }
  return lines;
}

std::optional<std::string> SetImporter::read_or_report(const SetFile& file) {
  try {
    return read_file_text(file.path, input_limits().jsonl_file_bytes, "jsonl_file_bytes");
  } catch (const Error& e) {
    problem(e);
    return std::nullopt;
  }
}

void SetImporter::import_workloads(const SetFile& file) {
  const std::optional<std::string> text = read_or_report(file);
  const std::vector<TextLine> lines = bounded_lines(file, text);
  std::vector<PendingWorkload> batch;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    try {
      batch.push_back(stage_workload(file, lines[i]));
    } catch (const Error& e) {
      problem(e);
    }
    if (batch.size() >= options_.batch || i + 1 == lines.size()) {
      if (!batch.empty()) commit_workloads(batch);
      batch.clear();
      progress(file.relative, lines[i].end);
    }
  }
  bytes_before_ += file.size;
}

void SetImporter::import_traces(const SetFile& file) {
  const std::optional<std::string> text = read_or_report(file);
  const std::vector<TextLine> lines = bounded_lines(file, text);
  const auto chunk = [&](std::size_t start) {
    return std::span(lines).subspan(start, std::min(options_.batch, lines.size() - start));
  };
  const auto parse = [&](std::size_t start) {
    return std::async(std::launch::async, [this, &file, part = chunk(start)] {
      return parse_trace_lines(part, file, import_id_);
    });
  };
  // Parsing the next batch overlaps writing this one: the two halves of the work.
  std::future<std::vector<ParsedTraceLine>> next;
  if (!lines.empty()) next = parse(0);
  for (std::size_t start = 0; start < lines.size(); start += options_.batch) {
    std::vector<ParsedTraceLine> parsed = next.get();
    if (start + options_.batch < lines.size()) next = parse(start + options_.batch);
    std::vector<TraceRow> batch;
    for (ParsedTraceLine& p : parsed) {
      if (p.problem) report_.problems.push_back(std::move(*p.problem));
      if (!p.row) continue;
      const auto it = solution_ids_.find(solution_key(p.row->facts.definition, p.row->facts.solution));
      if (it != solution_ids_.end()) p.row->solution_id = it->second;
      batch.push_back(std::move(*p.row));
    }
    if (!batch.empty()) commit_traces(batch);
    progress(file.relative, chunk(start).back().end);
  }
  bytes_before_ += file.size;
}

}  // namespace

ImportReport import_trace_set(Archive& archive, const fs::path& root, const ImportOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw Error(Location{root.string(), 0, ""}, "not a folder");
  const auto start = std::chrono::steady_clock::now();
  ImportReport report;
  SetImporter(archive, root, options, report).run();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace kh::archive
