// Solutions and requests shared by the build tests.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "base/temp_dir.h"
#include "compile/build_cache.h"
#include "compile/build_request.h"

namespace kh::test {

// out = x + alpha * y, split over two translation units and a header, so the
// build must compile the non-entry source separately and link it.
inline const char* const kScaleAddEntry = R"(#include <kharness/kernel.h>
#include "detail/scale.h"

void scale_add(const DLTensor* x, const DLTensor* y, float alpha, DLTensor* out, kh_stream_t stream) {
  (void)stream;
  const float* a = static_cast<const float*>(x->data);
  const float* b = static_cast<const float*>(y->data);
  float* o = static_cast<float*>(out->data);
  for (int64_t i = 0; i < kh_numel(x); ++i) o[i] = a[i] + scale(alpha, b[i]);
}
)";
inline const char* const kScaleHeader = "#pragma once\nfloat scale(float alpha, float v);\n";
inline const char* const kScaleSource =
    "#include \"scale.h\"\nfloat scale(float alpha, float v) { return alpha * v; }\n";

inline KernelSignature scale_add_signature() {
  using R = KernelParam::Role;
  return {"scale_add",
          {{"x", R::input, DType::float32},
           {"y", R::input, DType::float32},
           {"alpha", R::scalar, DType::float32},
           {"out", R::output, DType::float32}}};
}

inline std::filesystem::path test_include_dir() {
  return std::filesystem::path(KHARNESS_BINARY_DIR) / "include";
}

// A cpp request whose entry file is `entry` (the other two sources stay).
inline BuildRequest scale_add_request(std::string entry = kScaleAddEntry) {
  BuildRequest r;
  r.language = "cpp";
  r.sources = {
      {"kernel.cpp", std::move(entry)}, {"detail/scale.h", kScaleHeader}, {"detail/scale.cpp", kScaleSource}};
  r.entry_file = "kernel.cpp";
  r.entry_function = "scale_add";
  r.signature = scale_add_signature();
  r.include_dir = test_include_dir();
  r.timeout = std::chrono::seconds(120);
  return r;
}

// A fresh cache directory per test, removed afterwards.
class ScratchCache {
 public:
  ScratchCache()
      : dir_(std::filesystem::temp_directory_path(), "kharness-build-test-"), cache_(dir_.path() / "cache") {}
  [[nodiscard]] const BuildCache& cache() const { return cache_; }
  [[nodiscard]] const std::filesystem::path& root() const { return dir_.path(); }

 private:
  detail::TempDir dir_;
  BuildCache cache_;
};

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;  // restores exactly once
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace kh::test
