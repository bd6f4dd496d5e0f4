#include "archive/trace_set_export.h"

#include <fstream>
#include <map>
#include <set>

#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

// A path read from the archive, as a path under the output folder: relative, no "..".
fs::path safe_relative(const std::string& text) {
  const fs::path p = fs::path(text).lexically_normal();
  bool ok = !text.empty() && p.is_relative() && !p.empty();
  for (const fs::path& part : p) ok = ok && part != "..";
  if (!ok)
    throw Error(Location{"", 0, "source_path"},
                "refusing to write outside the output folder: '" + text + "'");
  return p;
}

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
  static std::string key(const std::string& relative) { return safe_relative(relative).generic_string(); }

  fs::path prepare(const std::string& relative) {
    const fs::path path = out_ / safe_relative(relative);
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

  Archive& archive_;
  SetWriter& writer_;
  const ExportOptions& options_;
  ExportReport& report_;
  std::map<std::string, std::string> op_types_;  // definition name -> op_type
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
      "SELECT name, definition, json_blob, source_path, content_id FROM solutions "
      "WHERE role != 'reference'" +
      filter("definition") + " ORDER BY id");
  while (s.step()) {
    const std::string name = s.column_text(0), definition = s.column_text(1);
    const std::string folder = "solutions/" + op_type(definition) + "/" + component(definition) + "/";
    std::string path = s.column_optional_text(3).value_or(folder + component(name) + ".json");
    // Two contents under one name (a solution edited between evaluations): both kept.
    if (writer_.was_written(path))
      path = folder + component(name) + "-" + s.column_text(4).substr(0, 12) + ".json";
    if (writer_.write_whole(path, archive_.blobs().read(s.column_text(2)))) ++report_.solutions;
  }
}

void SetExporter::traces() {
  Statement s = query("SELECT definition, line, source_path FROM traces WHERE 1" + filter("definition") +
                      " ORDER BY source_path IS NULL, source_path, source_line, id");
  while (s.step()) {
    const std::string definition = s.column_text(0);
    const std::string path = s.column_optional_text(2).value_or("traces/" + op_type(definition) + "/" +
                                                                component(definition) + ".jsonl");
    writer_.append_line(path, s.column_text(1));
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
  archive.db().exec("BEGIN");
  try {
    SetExporter(archive, writer, options, report).run();
  } catch (...) {
    rollback_if_open(archive.db());
    throw;
  }
  archive.db().exec("COMMIT");
  return report;
}

}  // namespace kh::archive
