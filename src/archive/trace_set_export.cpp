#include "archive/trace_set_export.h"

#include <fstream>
#include <map>
#include <set>

#include "archive/relative_path.h"
#include "archive/upstream_solution.h"
#include "archive/upstream_trace.h"
#include "archive/write_transaction.h"
#include "error/error.h"
#include "trace/json_io.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

// A name used as one path component: separators and dot-names would change the layout.
std::string component(std::string name) {
  for (char& c : name)
    if (c == '/' || c == '\\' || c == '\0') c = '_';
  if (name.empty() || name == "." || name == "..") name = "_" + name;
  return name;
}

// Writes the set's files; JSONL files are appended line by line, a bounded number open.
class SetWriter {
 public:
  explicit SetWriter(fs::path out) : out_(std::move(out)) {}

  void append_line(const std::string& relative, const std::string& line) {
    std::ofstream& f = open_for_append(key(relative));
    f << line << '\n';
    if (!f) fail(relative);
  }

  // False (and nothing written) when the file was written before.
  bool write_whole(const std::string& relative, const std::string& text) {
    if (!written_.insert(key(relative)).second) return false;
    const fs::path path = prepare(relative);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) fail(relative);
    return true;
  }

  bool copy_file(const std::string& relative, const fs::path& from) {
    if (!written_.insert(key(relative)).second) return false;
    std::error_code ec;
    fs::copy_file(from, prepare(relative), fs::copy_options::overwrite_existing, ec);
    if (ec)
      throw Error(Location{from.string(), 0, ""}, "cannot copy blob to " + relative + ": " + ec.message());
    return true;
  }

  [[nodiscard]] bool was_written(const std::string& relative) const {
    return written_.count(key(relative)) != 0;
  }

  // Closes every file, reporting a failed final flush.
  void close() {
    for (auto& [relative, f] : open_) {
      f.close();
      if (!f) fail(relative);
    }
    open_.clear();
  }

  [[nodiscard]] std::int64_t files() const { return static_cast<std::int64_t>(written_.size()); }

 private:
  static constexpr std::size_t kMostOpen = 64;

  // "./blob/a" and "blob/a" are one file.
  static std::string key(const std::string& relative) {
    return require_contained_path(relative, "source_path").generic_string();
  }

  fs::path prepare(const std::string& relative) {
    const fs::path path = out_ / require_contained_path(relative, "source_path");
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      throw Error(Location{path.parent_path().string(), 0, ""}, "cannot create folder: " + ec.message());
    return path;
  }

  std::ofstream& open_for_append(const std::string& relative) {
    auto it = open_.find(relative);
    if (it != open_.end()) return it->second;
    if (open_.size() >= kMostOpen) close();
    written_.insert(relative);
    std::ofstream f(prepare(relative), std::ios::binary | std::ios::app);
    if (!f) fail(relative);
    return open_.emplace(relative, std::move(f)).first->second;
  }

  [[noreturn]] void fail(const std::string& relative) const {
    throw Error(Location{(out_ / relative).string(), 0, ""}, "cannot write file");
  }

  fs::path out_;
  std::map<std::string, std::ofstream> open_;
  std::set<std::string> written_;
};

class SetExporter {
 public:
  SetExporter(Archive& archive, SetWriter& writer, const ExportOptions& options, ExportReport& report)
      : archive_(archive), writer_(writer), options_(options), report_(report) {}

  void run() {
    definitions();
    workloads();
    input_files();
    solutions();
    traces();
    writer_.close();
    report_.files = writer_.files();
  }

 private:
  // " AND <column> = ?1" when exporting one definition.
  [[nodiscard]] std::string filter(std::string_view column) const {
    return options_.definition ? " AND " + std::string(column) + " = ?1" : "";
  }
  Statement query(const std::string& sql) const {
    Statement s = archive_.db().prepare(sql);
    if (options_.definition) s.bind(1, *options_.definition);
    return s;
  }
  [[nodiscard]] std::string op_type(const std::string& definition) const {
    const auto it = op_types_.find(definition);
    return component(it == op_types_.end() ? "unknown" : it->second);
  }

  void definitions();
  void workloads();
  void input_files();
  void solutions();
  void traces();
  [[nodiscard]] std::optional<std::string> upstream_solution_text(std::int64_t id, const std::string& name,
                                                                  const std::string& definition,
                                                                  const std::string& text);
  [[nodiscard]] std::vector<std::string> hardware_of(std::int64_t solution_id) const;

  Archive& archive_;
  SetWriter& writer_;
  const ExportOptions& options_;
  ExportReport& report_;
  std::map<std::string, std::string> op_types_;  // definition name -> op_type
  std::map<std::string, Definition> parsed_;     // definition name -> its model (upstream export)
  std::set<std::string> exported_names_;         // solution names written (upstream export)
  std::map<std::int64_t, std::string> renamed_;  // solution id -> the name it was exported under
};

void SetExporter::definitions() {
  Statement s = query("SELECT name, op_type, json, source_path FROM definitions WHERE 1" + filter("name") +
                      " ORDER BY id");
  while (s.step()) {
    const std::string name = s.column_text(0);
    if (!op_types_.emplace(name, s.column_text(1)).second) {
      // One name, several contents: a set may hold one, so the first recorded wins.
      report_.warnings.push_back("definition '" + name +
                                 "' has another version in the archive; exported the first");
      continue;
    }
    const std::string path = s.column_optional_text(3).value_or("definitions/" + component(s.column_text(1)) +
                                                                "/" + component(name) + ".json");
    writer_.write_whole(path, s.column_text(2));
    ++report_.definitions;
    try {
      parsed_.emplace(name, parse_definition(s.column_text(2)));
    } catch (const Error& e) {  // only conversions need it; each says so if it is missing
      report_.warnings.push_back("definition '" + name + "' does not parse: " + e.what());
    }
  }
  if (options_.definition && op_types_.empty()) {
    throw Error(Location{"", 0, "--definition"},
                "no definition named '" + *options_.definition + "' in the archive");
  }
}

void SetExporter::workloads() {
  Statement s = query("SELECT definition, line, source_path FROM workloads WHERE 1" + filter("definition") +
                      " ORDER BY source_path IS NULL, source_path, source_line, id");
  while (s.step()) {
    const std::string definition = s.column_text(0);
    const std::string path = s.column_optional_text(2).value_or("workloads/" + op_type(definition) + "/" +
                                                                component(definition) + ".jsonl");
    writer_.append_line(path, s.column_text(1));
    ++report_.workloads;
  }
}

void SetExporter::input_files() {
  Statement s = query(
      "SELECT DISTINCT f.path, f.blob FROM workload_files f JOIN workloads w ON w.id = f.workload_id WHERE "
      "1" +
      filter("w.definition") + " ORDER BY f.path");
  while (s.step()) {
    if (writer_.copy_file(s.column_text(0), archive_.blobs().path_of(s.column_text(1))))
      ++report_.input_files;
  }
}

void SetExporter::solutions() {
  Statement s = query(
      "SELECT name, definition, json_blob, source_path, content_id, id FROM solutions "
      "WHERE role != 'reference'" +
      filter("definition") + " ORDER BY id");
  while (s.step()) {
    const std::string name = s.column_text(0), definition = s.column_text(1);
    const std::string folder = "solutions/" + op_type(definition) + "/" + component(definition) + "/";
    std::string path = s.column_optional_text(3).value_or(folder + component(name) + ".json");
    // Two contents under one name (a solution edited between evaluations): both kept.
    if (writer_.was_written(path))
      path = folder + component(name) + "-" + s.column_text(4).substr(0, 12) + ".json";
    std::optional<std::string> text = archive_.blobs().read(s.column_text(2));
    if (options_.upstream) {
      const std::string exported =
          exported_names_.count(name) ? name + "-" + s.column_text(4).substr(0, 12) : name;
      if (exported != name) renamed_[s.column_int(5)] = exported;
      text = upstream_solution_text(s.column_int(5), name, definition, *text);
      if (!text) continue;
      exported_names_.insert(exported);
    }
    if (writer_.write_whole(path, *text)) ++report_.solutions;
  }
}

std::vector<std::string> SetExporter::hardware_of(std::int64_t solution_id) const {
  Statement s = archive_.db().prepare(
      "SELECT DISTINCT e.hardware FROM traces t JOIN environments e ON e.id = t.environment_id "
      "WHERE t.solution_id = ?1 AND e.hardware != '' ORDER BY e.hardware");
  s.bind(1, solution_id);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

std::optional<std::string> SetExporter::upstream_solution_text(std::int64_t id, const std::string& name,
                                                               const std::string& definition,
                                                               const std::string& text) {
  UpstreamSolutionInputs in;
  const auto def = parsed_.find(definition);
  in.definition = def == parsed_.end() ? nullptr : &def->second;
  in.hardware = hardware_of(id);
  if (auto it = renamed_.find(id); it != renamed_.end()) in.rename = it->second;
  UpstreamSolution out = upstream_solution(text, in);
  if (!out.note.empty()) report_.notes.push_back("solution '" + name + "': " + out.note);
  if (!out.text) {
    ++report_.left_out;
    report_.warnings.push_back("solution '" + name + "' " + out.note);
  } else if (*out.text != text) {
    ++report_.converted;
  }
  return std::move(out.text);
}

void SetExporter::traces() {
  Statement s = query("SELECT definition, line, source_path, solution_id FROM traces WHERE 1" +
                      filter("definition") + " ORDER BY source_path IS NULL, source_path, source_line, id");
  while (s.step()) {
    const std::string definition = s.column_text(0);
    const std::string path = s.column_optional_text(2).value_or("traces/" + op_type(definition) + "/" +
                                                                component(definition) + ".jsonl");
    std::string line = s.column_text(1);
    if (options_.upstream) {
      std::optional<std::string> rename;
      if (const auto id = s.column_optional_int(3)) {
        if (auto it = renamed_.find(*id); it != renamed_.end()) rename = it->second;
      }
      if (auto rewritten = upstream_trace_line(line, rename)) line = std::move(*rewritten);
    }
    writer_.append_line(path, line);
    ++report_.traces;
  }
}

void require_empty_folder(const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec)) throw Error(Location{out.string(), 0, ""}, "exists and is not a folder");
  if (!fs::is_empty(out, ec)) {
    throw Error(Location{out.string(), 0, ""},
                "folder is not empty; export writes a whole set into an empty one");
  }
}

}  // namespace

ExportReport export_trace_set(Archive& archive, const fs::path& out, const ExportOptions& options) {
  require_empty_folder(out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw Error(Location{out.string(), 0, ""}, "cannot create folder: " + ec.message());
  ExportReport report;
  SetWriter writer(out);
  // One read transaction: a consistent snapshot while other processes keep writing.
  read_transaction(archive.db(), [&] { SetExporter(archive, writer, options, report).run(); });
  return report;
}

}  // namespace kh::archive
