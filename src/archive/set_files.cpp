#include "archive/set_files.h"

#include <algorithm>
#include <array>

#include "trace/bounded_file.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

struct Folder {
  std::string_view name;
  std::string_view extension;
  FileKind kind;
};

// In import order: a trace names its solution, so solutions come before traces.
constexpr std::array<Folder, 4> kFolders = {
    Folder{"definitions", ".json", FileKind::definition}, Folder{"solutions", ".json", FileKind::solution},
    Folder{"workloads", ".jsonl", FileKind::workloads}, Folder{"traces", ".jsonl", FileKind::traces}};

void list_folder(const fs::path& root, const Folder& folder, std::vector<SetFile>& out,
                 std::vector<Diagnostic>& problems) {
  const fs::path dir = root / folder.name;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<SetFile> found;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec) || it->path().extension() != folder.extension) continue;
    SetFile f{it->path(), it->path().lexically_relative(root).generic_string(), folder.kind, 0};
    f.size = it->file_size(type_ec);
    found.push_back(std::move(f));
  }
  if (ec)
    problems.push_back(
        {Severity::error, Location{dir.string(), 0, ""}, "cannot list folder: " + ec.message()});
  std::sort(found.begin(), found.end(),
            [](const SetFile& a, const SetFile& b) { return a.relative < b.relative; });
  out.insert(out.end(), found.begin(), found.end());
}

}  // namespace

std::vector<SetFile> list_set_files(const fs::path& root, std::vector<Diagnostic>& problems) {
  std::vector<SetFile> out;
  for (const Folder& folder : kFolders) list_folder(root, folder, out, problems);
  return out;
}

std::vector<TextLine> jsonl_lines(std::string_view text) {
  std::vector<TextLine> out;
  std::size_t start = 0;
  std::size_t number = 1;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) out.push_back({number, line, next});
    start = next;
    ++number;
  }
  return out;
}

std::string read_file_text(const fs::path& file) { return read_json_document(file); }

std::string read_file_text(const fs::path& file, std::uint64_t limit, std::string_view limit_name) {
  return read_bounded_file(file, limit, limit_name);
}

}  // namespace kh::archive
