// Builds solutions into shared libraries, content-addressed on disk.
//
// Layout: <dir>/<key[0:2]>/<key>/{lib.so, build.log, meta.json}. An entry appears
// whole or not at all: it is assembled in a private temp directory beside it and
// renamed into place (rename(2) of a directory is atomic). Several processes may
// build the same key at once; the first rename wins and the others use the
// winner's entry. Failed compiles are cached with their log, so a broken candidate
// is not recompiled; timeouts, compilers killed by a signal and compilers that could
// not run are not (the machine caused them, not the sources).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "compile/build_request.h"

namespace kh {

class BuildCache {
 public:
  // Creates `dir` if needed. Throws kh::Error if it cannot.
  explicit BuildCache(std::filesystem::path dir);

  // $KHARNESS_CACHE_DIR, else $XDG_CACHE_HOME/kharness/builds, else
  // ~/.cache/kharness/builds. Throws kh::Error if none can be determined.
  [[nodiscard]] static std::filesystem::path default_dir();

  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

  // Returns the cached result for the request's key, or compiles it (at most one
  // compiler process) and caches the result. A compile error or timeout is a
  // result, not an exception. Throws kh::Error for a request that cannot be built
  // at all: a bad source path, an unknown language or arch, a missing compiler or
  // missing headers, an entry_file not among the sources, a signature that does not
  // name entry_function.
  [[nodiscard]] BuildResult build(const BuildRequest& request) const;

  // The key build() would use (compiler version included). Throws like build().
  [[nodiscard]] std::string key(const BuildRequest& request) const;

  // The cached result under `key`, if any (library set only for ok builds).
  [[nodiscard]] std::optional<BuildResult> lookup(const std::string& key) const;

  // Where the entry for `key` lives (whether or not it exists).
  [[nodiscard]] std::filesystem::path entry_dir(const std::string& key) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace kh
