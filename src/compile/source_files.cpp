#include "compile/source_files.h"

#include <fstream>
#include <set>
#include <string>

#include "error/error.h"
#include "error/location.h"

namespace kh::detail {

namespace {
bool bad_char(char c) { return c == '\\' || c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }
}  // namespace

void validate_source_path(std::string_view path, std::size_t index) {
  const Location where = at_field("sources[" + std::to_string(index) + "].path");
  if (path.empty()) throw Error(where, "source path is empty");
  if (path.front() == '/') throw Error(where, "source path '" + std::string(path) + "' is absolute");
  for (char c : path) {
    if (bad_char(c))
      throw Error(where,
                  "source path '" + std::string(path) + "' has a backslash, quote or control character");
  }
  std::string_view rest = path;
  while (true) {
    const std::size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    if (part == "..")
      throw Error(where, "source path '" + std::string(path) + "' leaves the solution directory ('..')");
    if (part.empty() || part == ".")
      throw Error(where, "source path '" + std::string(path) + "' is not normalised");
    if (slash == std::string_view::npos) return;
    rest.remove_prefix(slash + 1);
  }
}

void write_sources(const std::filesystem::path& root, const std::vector<BuildSource>& sources) {
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    validate_source_path(sources[i].path, i);
    if (!seen.insert(sources[i].path).second) {
      throw Error(at_field("sources[" + std::to_string(i) + "].path"),
                  "source path '" + sources[i].path + "' appears twice");
    }
  }
  for (const BuildSource& src : sources) {
    const std::filesystem::path file = root / src.path;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(src.content.data(), static_cast<std::streamsize>(src.content.size()));
    if (!out) throw Error(at_file(file.string()), "cannot write source file");
  }
}

}  // namespace kh::detail
