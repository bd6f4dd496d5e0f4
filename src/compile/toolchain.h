// A compiler that turns a solution's sources into one shared library.
//
// Toolchains are plug-ins chosen by name ("nvcc", "g++") or by solution language
// ("cuda", "cpp"). Adding one is one new file and one line in toolchain_registry.cpp.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compile/build_request.h"

namespace kh {

// One compiler invocation: compile `sources` and link them into `output`.
struct CompileJob {
  std::filesystem::path work_dir;              // the compiler's cwd; sources are relative to it
  std::vector<std::filesystem::path> sources;  // translation units, in link order
  std::filesystem::path output;                // the .so to write
  std::vector<std::filesystem::path> include_dirs;
  std::vector<std::string> defines;  // NAME or NAME=value
  std::vector<std::string> extra_flags;
  std::string arch;                                 // "" for host compilers
  std::vector<std::filesystem::path> library_dirs;  // -L, and an rpath so the library loads as built
  std::vector<std::string> libraries;               // -l, linked only where used (--as-needed)
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
};

struct CompileOutcome {
  BuildResult::Status status = BuildResult::Status::compile_error;
  std::vector<std::string> command;  // argv as run
  std::string log;                   // stdout+stderr
  double seconds = 0;
  // Whether the outcome says something about the sources, so that the build cache may
  // keep it. Not when the compile timed out, was killed by a signal (the OOM killer, a
  // seccomp filter) or could not be executed: the machine decided those, and the same
  // sources may build on the next try.
  bool cacheable = true;
};

class Toolchain {
 public:
  virtual ~Toolchain() = default;

  [[nodiscard]] virtual std::string_view name() const noexcept = 0;      // "nvcc"
  [[nodiscard]] virtual std::string_view language() const noexcept = 0;  // "cuda"
  // Extension of the generated entry shim, ".cu" or ".cpp".
  [[nodiscard]] virtual std::string_view shim_extension() const noexcept = 0;
  // Whether a source file with this name is a translation unit (headers are not).
  [[nodiscard]] virtual bool compiles(const std::filesystem::path& source) const = 0;

  // The compiler's absolute path; throws kh::Error with an actionable message when
  // it is not installed.
  [[nodiscard]] virtual std::filesystem::path executable() const = 0;
  [[nodiscard]] bool available() const;

  // The compiler's identity for the cache key (from `--version`), cached per
  // executable. Throws kh::Error if the compiler cannot be run.
  [[nodiscard]] virtual std::string version() const = 0;

  // The fixed flags for `arch` (optimisation, standard, PIC, gencode). They are
  // part of the cache key. Throws kh::Error for an arch it cannot target.
  [[nodiscard]] virtual std::vector<std::string> flags(std::string_view arch) const = 0;

  // The full argv for `job`.
  [[nodiscard]] std::vector<std::string> command(const CompileJob& job) const;

  // Runs command(job) with job.timeout.
  [[nodiscard]] CompileOutcome compile_shared(const CompileJob& job) const;

 protected:
  // Flags placed after the sources (libraries to link).
  [[nodiscard]] virtual std::vector<std::string> link_flags() const { return {}; }
  // `option` handed to the linker through the compiler driver ("-Wl,OPT" for g++).
  [[nodiscard]] virtual std::vector<std::string> linker_option(std::string_view option) const {
    return {"-Wl," + std::string(option)};
  }
};

// The CUDA toolkit's library folder (lib64 beside nvcc's bin/), where nvcc is found and
// the folder holds libcudart; the folder CUDA solutions link cuBLAS and friends from.
[[nodiscard]] std::optional<std::filesystem::path> cuda_library_dir();

// The toolchain registered under `name` ("nvcc", "g++"). Throws kh::Error if unknown.
[[nodiscard]] const Toolchain& toolchain(std::string_view name);

// The toolchain for a solution language ("cuda" -> nvcc, "cpp" -> g++). Throws kh::Error.
[[nodiscard]] const Toolchain& toolchain_for_language(std::string_view language);

}  // namespace kh
