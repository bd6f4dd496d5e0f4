// The optimisation loop in flashinfer-bench's binding: started from a tvm-ffi solution with
// knobs, the tuner's candidates stay tvm-ffi, the faster setting is promoted, and the
// winner is exported for flashinfer-bench unchanged (no conversion needed). CPU backend;
// skips without apache-tvm-ffi.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/kharness_command.h"
#include "compile/tvm_ffi_runtime.h"
#include "support/temp_dir.h"
#include "trace/json_io.h"

namespace kh {
namespace {

using cli_test::run;
using cli_test::Stderr;

const std::filesystem::path kSource = KHARNESS_SOURCE_DIR;
const std::string kSlow = (kSource / "tests/control/data/rmsnorm_slow_knobs_tvm_ffi.json").string();

TEST(OptimizeTvmFfi, TunerKeepsTheBindingAndTheWinnerExportsAsItIs) {
  try {
    (void)find_tvm_ffi(std::filesystem::path(KHARNESS_BINARY).parent_path());
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  test::TempDir tmp("optimize-tvm-ffi");
  const auto archive = tmp.path() / "a";
  const auto r =
      run("optimize --definition rmsnorm_h128 --small --backend cpu --no-reference-timing --archive '" +
              archive.string() + "' --from '" + kSlow + "' --rounds 1 --seed 7 --json",
          Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json s = nlohmann::json::parse(r.out);
  EXPECT_EQ(s.at("best").at("name"), "rmsnorm_slow_knobs_tvm_ffi+ROW_PASSES=1,BATCH_PASSES=1");
  EXPECT_GT(s.at("speedup_over_start").get<double>(), 1.5);

  const auto out = tmp.path() / "export";
  const auto e = run("archive export --json --archive '" + archive.string() + "' '" + out.string() + "'",
                     Stderr::dropped);
  ASSERT_EQ(e.status, 0) << e.out;
  EXPECT_EQ(nlohmann::json::parse(e.out).at("solutions_converted"), 0) << e.out;
  bool found = false;
  for (const auto& f : std::filesystem::recursive_directory_iterator(out / "solutions")) {
    if (!f.is_regular_file()) continue;  // the set's folders (solutions/<kind>/<definition>/...)
    std::ifstream in(f.path());
    const Solution sol = parse_solution(std::string(std::istreambuf_iterator<char>(in), {}));
    EXPECT_EQ(sol.spec.binding, "tvm-ffi") << f.path();
    found |= sol.name == s.at("best").at("name").get<std::string>();
  }
  EXPECT_TRUE(found) << "the winner is not in the export";
}

}  // namespace
}  // namespace kh
