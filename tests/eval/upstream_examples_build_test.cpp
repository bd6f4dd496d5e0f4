// The tvm-ffi CUDA solutions under examples/solutions/upstream/tvm-ffi/ build for sm_90a
// against their FlashInfer-Trace definitions (../shared/flashinfer-trace), through the
// same build path as `kharness eval`, signature checks included. Needs nvcc and
// apache-tvm-ffi, not a GPU; skips without the shared definitions. Their runs on the H200
// are in bench/README.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compile/build_queue.h"
#include "compile/tvm_ffi_runtime.h"
#include "eval/solution_build.h"
#include "trace/json_io.h"

namespace kh {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The shared set's definition named `name`, if any.
std::optional<Definition> shared_definition(const std::string& name) {
  const fs::path root = fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace/definitions";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == name + ".json") return parse_definition(read(it->path()));
  }
  return std::nullopt;
}

TEST(UpstreamExamples, TvmFfiCudaSolutionsBuildForSm90a) {
  if (!fs::exists(fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace/definitions"))
    GTEST_SKIP() << "no shared FlashInfer-Trace definitions";
  try {
    (void)find_tvm_ffi(KHARNESS_BINARY_DIR);
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  BuildSettings settings;
  settings.backend = "cuda";
  settings.arch = "sm_90a";
  settings.include_dir = fs::path(KHARNESS_BINARY_DIR) / "include";
  settings.tvm_ffi_beside = KHARNESS_BINARY_DIR;
  const BuildCache cache(fs::temp_directory_path() / "kharness-upstream-examples-cache");
  std::vector<BuildRequest> requests;
  std::vector<fs::path> files;
  for (const auto& file :
       fs::directory_iterator(fs::path(KHARNESS_SOURCE_DIR) / "examples/solutions/upstream/tvm-ffi")) {
    const Solution s = parse_solution(read(file.path()), Location{file.path().string(), 0, ""});
    const std::optional<Definition> d = shared_definition(s.definition);
    ASSERT_TRUE(d) << s.definition << " is not a shared definition";
    requests.push_back(build_request(s, *d, settings));
    files.push_back(file.path());
  }
  // Two compilers at once: each nvcc run parses tvm-ffi's headers.
  const std::vector<BuildResult> results = build_all(cache, requests, 2);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, BuildResult::Status::ok) << files[i] << ": " << results[i].message << "\n"
                                                          << results[i].log;
  }
  const std::size_t built = results.size();
  EXPECT_GE(built, 4u);
}

}  // namespace
}  // namespace kh
