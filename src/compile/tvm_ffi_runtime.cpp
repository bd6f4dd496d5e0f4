#include "compile/tvm_ffi_runtime.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>

#include "base/executable_lookup.h"
#include "base/process_runner.h"
#include "base/sha256.h"
#include "error/error.h"
#include "error/location.h"

namespace kh {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kInstallHint =
    "binding 'tvm-ffi' needs apache-tvm-ffi's headers and libtvm_ffi.so: run scripts/setup.sh (it fetches "
    "them into .deps/tvm-ffi, which the build copies beside kharness), `pip install apache-tvm-ffi`, or set "
    "KHARNESS_TVM_FFI_ROOT to a folder with include/ and lib/libtvm_ffi.so";

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string version_of(const fs::path& c_api) {
  const std::string text = read_text(c_api);
  std::string version;
  for (const char* part : {"MAJOR", "MINOR", "PATCH"}) {
    const std::regex re(std::string("#define TVM_FFI_VERSION_") + part + "\\s+([0-9]+)");
    std::smatch m;
    if (!std::regex_search(text, m, re)) return "unknown";
    version += (version.empty() ? "" : ".") + m[1].str();
  }
  return version;
}

// Headers decide what a solution compiles to; the library is bound at run time by its
// soname. So the fingerprint covers the version and every header under tvm/.
std::string fingerprint_of(const TvmFfiRuntime& r) {
  Sha256 h;
  h.update_field(r.version);
  for (const fs::path& dir : r.include_dirs) {
    std::vector<fs::path> headers;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir / "tvm", ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file()) headers.push_back(it->path());
    }
    std::sort(headers.begin(), headers.end());
    for (const fs::path& file : headers) {
      h.update_field(fs::relative(file, dir).generic_string());
      h.update_field(read_text(file));
    }
  }
  return h.hex_digest();
}

TvmFfiRuntime from_root(const fs::path& root, std::string found_by) {
  TvmFfiRuntime r;
  r.include_dirs = {root / "include"};
  r.library_dir = root / "lib";
  r.found_by = std::move(found_by);
  return r;
}

// Asks the Python package where it lives: include dir, dlpack include dir, library.
std::optional<TvmFfiRuntime> from_python() {
  const auto python = detail::find_compiler("", "python3", {});
  if (!python) return std::nullopt;
  const std::vector<std::string> argv{
      python->string(), "-c",
      "import tvm_ffi, tvm_ffi.libinfo as l\n"
      "print(l.find_include_path()); print(l.find_dlpack_include_path()); print(l.find_libtvm_ffi())"};
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = fs::temp_directory_path();
  spec.role = "python3";
  RunOptions options;
  options.timeout = std::chrono::seconds(60);
  const ProcessRun run = run_process(std::move(spec), options);
  if (run.timed_out || run.exit_code() != 0) return std::nullopt;
  std::vector<std::string> lines;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.size() < 3) return std::nullopt;
  TvmFfiRuntime r;
  r.include_dirs = {lines[lines.size() - 3]};
  if (lines[lines.size() - 2] != lines[lines.size() - 3])
    r.include_dirs.emplace_back(lines[lines.size() - 2]);
  r.library_dir = fs::path(lines.back()).parent_path();
  r.found_by = "python3 (" + python->string() + ")";
  if (!fs::is_regular_file(r.include_dirs[0] / "tvm/ffi/c_api.h") ||
      !fs::is_regular_file(r.library_dir / "libtvm_ffi.so"))
    return std::nullopt;
  return r;
}

std::optional<TvmFfiRuntime> locate(const fs::path& beside) {
  if (const char* forced = std::getenv("KHARNESS_TVM_FFI_ROOT"); forced != nullptr && *forced != '\0') {
    if (!is_tvm_ffi_root(forced)) {
      throw Error(
          detail::at_field("KHARNESS_TVM_FFI_ROOT"),
          std::string("'") + forced + "' does not hold include/tvm/ffi/c_api.h and lib/libtvm_ffi.so");
    }
    return from_root(forced, "KHARNESS_TVM_FFI_ROOT");
  }
  for (const fs::path& dir : {beside / "tvm-ffi", beside.parent_path() / "tvm-ffi"}) {
    if (is_tvm_ffi_root(dir)) return from_root(dir, "beside kharness (" + dir.string() + ")");
  }
  return from_python();
}

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

bool is_tvm_ffi_root(const fs::path& root) {
  std::error_code ec;
  return fs::is_regular_file(root / "include/tvm/ffi/c_api.h", ec) &&
         fs::is_regular_file(root / "lib/libtvm_ffi.so", ec);
}

const TvmFfiRuntime& find_tvm_ffi(const fs::path& beside) {
  static std::mutex mutex;
  static std::map<fs::path, TvmFfiRuntime> found;
  const fs::path where = beside.empty() ? executable_dir() : beside;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = found.find(where); it != found.end()) return it->second;
  std::optional<TvmFfiRuntime> r = locate(where);
  if (!r) throw Error(detail::at_field("spec.binding"), std::string(kInstallHint));
  r->version = version_of(r->include_dirs[0] / "tvm/ffi/c_api.h");
  r->fingerprint = fingerprint_of(*r);
  return found.emplace(where, std::move(*r)).first->second;
}

}  // namespace kh
