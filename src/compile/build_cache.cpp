#include "compile/build_cache.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/temp_dir.h"
#include "compile/detail/build_key.h"
#include "compile/detail/compile_log.h"
#include "compile/entry_shim.h"
#include "compile/include_dir.h"
#include "compile/source_files.h"
#include "compile/toolchain.h"
#include "compile/tvm_ffi_shim.h"
#include "error/error.h"
#include "error/location.h"

namespace kh {

namespace {
using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

constexpr std::string_view kLibrary = "lib.so";
constexpr std::string_view kLog = "build.log";
constexpr std::string_view kMeta = "meta.json";
constexpr std::string_view kSourceDir = "src";

// Everything build() derives from a request before it looks at the cache.
struct Plan {
  const Toolchain* toolchain;
  std::filesystem::path include_dir;
  EntryShim shim;
  std::string key;
  // A link error that has a clearer one-line meaning (an unexported tvm-ffi entry).
  std::pair<std::string, std::string> log_hint;
};

void check_request(const BuildRequest& r) {
  for (std::size_t i = 0; i < r.sources.size(); ++i) detail::validate_source_path(r.sources[i].path, i);
  bool has_entry = false;
  for (const BuildSource& s : r.sources) has_entry = has_entry || s.path == r.entry_file;
  if (!has_entry)
    throw Error(detail::at_field("entry_file"), "entry file '" + r.entry_file + "' is not among the sources");
  if (r.signature.function != r.entry_function) {
    throw Error(detail::at_field("entry_function"), "entry function '" + r.entry_function +
                                                        "' differs from the signature's '" +
                                                        r.signature.function + "'");
  }
  for (std::size_t i = 0; i < r.defines.size(); ++i) {
    const std::string& d = r.defines[i];
    const std::string name = d.substr(0, d.find('='));
    const bool ok =
        !name.empty() &&
        name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
            std::string::npos &&
        !(name[0] >= '0' && name[0] <= '9');
    if (!ok)
      throw Error(detail::at_field("defines[" + std::to_string(i) + "]"),
                  "'" + d + "' is not NAME or NAME=value");
  }
}

Plan make_plan(const BuildRequest& r) {
  check_request(r);
  Plan plan{&toolchain_for_language(r.language),
            r.include_dir.empty() ? default_include_dir() : r.include_dir,
            {},
            {},
            {}};
  if (!is_include_dir(plan.include_dir)) {
    throw Error(detail::at_field("include_dir"),
                "'" + plan.include_dir.string() + "' does not hold the kharness headers");
  }
  const std::string entry_include = std::string(kSourceDir) + "/" + r.entry_file;
  if (r.binding == EntryBinding::tvm_ffi) {
    plan.shim = generate_tvm_ffi_shim(r.signature, entry_include, plan.toolchain->shim_extension(),
                                      r.destination_passing);
    plan.log_hint = tvm_ffi_missing_export_hint(r.signature);
  } else {
    plan.shim = generate_entry_shim(r.signature, entry_include, plan.toolchain->shim_extension());
  }
  plan.key = detail::build_key(r, *plan.toolchain, plan.include_dir, plan.shim);
  return plan;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_text(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw Error(detail::at_file(file.string()), "cannot write");
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The translation units: the shim (which #includes the entry file) and every other
// compilable source. The entry file is not compiled on its own, or its symbols
// would be defined twice.
std::vector<std::filesystem::path> translation_units(const BuildRequest& r, const Plan& plan) {
  std::vector<std::filesystem::path> units{plan.shim.file_name};
  for (const BuildSource& s : r.sources) {
    if (s.path != r.entry_file && plan.toolchain->compiles(s.path))
      units.push_back(std::filesystem::path(kSourceDir) / s.path);
  }
  return units;
}

CompileOutcome compile(const BuildRequest& r, const Plan& plan, const std::filesystem::path& stage) {
  const std::filesystem::path work = stage / "work";
  detail::write_sources(work / kSourceDir, r.sources);
  write_text(work / plan.shim.file_name, plan.shim.content);
  // A binding's headers come first: tvm-ffi's dlpack.h is newer than kharness's copy.
  std::vector<std::filesystem::path> includes = r.extra_include_dirs;
  includes.insert(includes.end(), {plan.include_dir, kSourceDir});
  // Paths relative to the work dir keep the temp dir's name out of the log.
  CompileJob job{work,
                 translation_units(r, plan),
                 std::filesystem::path("..") / kLibrary,
                 std::move(includes),
                 r.defines,
                 r.extra_flags,
                 r.arch,
                 r.library_dirs,
                 r.libraries,
                 r.timeout};
  return plan.toolchain->compile_shared(job);
}

std::string failure_message(const CompileOutcome& outcome, const BuildRequest& r, const Plan& plan) {
  if (outcome.status == BuildResult::Status::timeout) {
    return "compile did not finish within " + std::to_string(r.timeout.count()) + " s";
  }
  if (!plan.log_hint.first.empty() && outcome.log.find(plan.log_hint.first) != std::string::npos)
    return plan.log_hint.second;
  std::string line = detail::first_error_line(outcome.log);
  if (!line.empty()) return line;
  return outcome.cacheable ? "the compiler failed without a message"
                           : "the compiler was killed or could not run, without a message (not cached)";
}

Json meta_json(const BuildRequest& r, const Plan& plan, const CompileOutcome& outcome,
               const std::string& message) {
  return Json{{"format", 1},
              {"key", plan.key},
              {"status", build_status_name(outcome.status)},
              {"message", message},
              {"language", r.language},
              {"binding", entry_binding_name(r.binding)},
              {"arch", r.arch},
              {"toolchain", plan.toolchain->name()},
              {"toolchain_version", plan.toolchain->version()},
              {"entry", r.entry_file + "::" + r.entry_function},
              {"signature", signature_text(r.signature)},
              {"command", outcome.command},
              {"compile_seconds", outcome.seconds},
              {"created_unix", std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count()}};
}

bool lost_race(int err) { return err == EEXIST || err == ENOTEMPTY; }
}  // namespace

BuildCache::BuildCache(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw Error(detail::at_file(dir_.string()), "cannot create the build cache: " + ec.message());
}

std::filesystem::path BuildCache::default_dir() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  if (std::string d = env("KHARNESS_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty())
    return std::filesystem::path(d) / "kharness" / "builds";
  if (std::string d = env("HOME"); !d.empty())
    return std::filesystem::path(d) / ".cache" / "kharness" / "builds";
  throw Error("no build cache directory: set KHARNESS_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

std::filesystem::path BuildCache::entry_dir(const std::string& key) const {
  return dir_ / key.substr(0, 2) / key;
}

std::string BuildCache::key(const BuildRequest& request) const { return make_plan(request).key; }

std::optional<BuildResult> BuildCache::lookup(const std::string& key) const {
  const std::filesystem::path entry = entry_dir(key);
  std::ifstream meta_in(entry / kMeta);
  if (!meta_in) return std::nullopt;
  const Json meta = Json::parse(meta_in, nullptr, /*allow_exceptions=*/false);
  const auto status = meta.is_object() ? parse_build_status(meta.value("status", "")) : std::nullopt;
  if (!status) throw Error(detail::at_file((entry / kMeta).string()), "corrupt build-cache entry; delete it");
  BuildResult result;
  result.status = *status;
  result.key = key;
  result.cache_hit = true;
  result.log = read_text(entry / kLog);
  result.message = meta.value("message", "");
  if (result.status == BuildResult::Status::ok) {
    result.library = entry / kLibrary;
    // A rebuild could not replace the entry (rename onto a non-empty directory
    // fails), so a damaged one is reported rather than handed out or built around.
    if (!std::filesystem::is_regular_file(result.library)) {
      throw Error(detail::at_file(entry.string()), "build-cache entry has no lib.so; delete the entry");
    }
  }
  return result;
}

BuildResult BuildCache::build(const BuildRequest& request) const {
  const auto start = Clock::now();
  const Plan plan = make_plan(request);
  if (auto hit = lookup(plan.key)) {
    hit->seconds = seconds_since(start);
    return *hit;
  }
  const std::filesystem::path final_dir = entry_dir(plan.key);
  detail::TempDir stage(final_dir.parent_path(), "." + plan.key + ".tmp-");
  const CompileOutcome outcome = compile(request, plan, stage.path());

  BuildResult result;
  result.status = outcome.status;
  result.key = plan.key;
  result.log = "$ " + command_line(outcome.command) + "\n" + outcome.log;
  if (outcome.status != BuildResult::Status::ok) result.message = failure_message(outcome, request, plan);
  if (!outcome.cacheable) {
    result.seconds = seconds_since(start);
    return result;
  }
  std::filesystem::remove_all(stage.path() / "work");
  write_text(stage.path() / kLog, result.log);
  write_text(stage.path() / kMeta, meta_json(request, plan, outcome, result.message).dump(2) + "\n");
  if (std::rename(stage.path().c_str(), final_dir.c_str()) == 0) {
    stage.release();
    if (result.status == BuildResult::Status::ok) result.library = final_dir / kLibrary;
  } else if (lost_race(errno)) {
    // Another builder of the same key renamed first; its entry is complete and equal.
    auto winner = lookup(plan.key);
    if (!winner)
      throw Error(detail::at_file(final_dir.string()), "lost the race to an entry that cannot be read");
    result = *winner;
    result.cache_hit = false;
  } else {
    throw Error(detail::at_file(final_dir.string()),
                std::string("cannot move the build into the cache: ") + std::strerror(errno));
  }
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace kh
