// Static analysis on real machine code: tests/profile/kernels/static_probe.cu is built
// here by nvcc with ptxas's report on, then read back through the parsers and the
// rule table. The rule table is also driven with synthetic evidence.
#include "profile/static_analysis.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "base/executable_lookup.h"
#include "base/process_runner.h"
#include "error/error.h"

namespace kh::profile {
namespace {

struct Built {
  std::filesystem::path library;
  std::string log;
};

// Built once for the suite; nullopt (and the tests skip) where nvcc is absent.
ProcessRun run(std::vector<std::string> argv, const std::filesystem::path& cwd,
               std::chrono::milliseconds timeout) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = cwd;
  RunOptions options;
  options.timeout = timeout;
  return run_process(std::move(spec), options);
}

const std::optional<Built>& probe() {
  static const std::optional<Built> built = []() -> std::optional<Built> {
    const auto nvcc = detail::find_compiler("KHARNESS_NVCC", "nvcc", {"/usr/local/cuda/bin/nvcc"});
    if (!nvcc) return std::nullopt;
    const auto dir =
        std::filesystem::temp_directory_path() / ("kharness-static-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    Built b{dir / "static_probe.so", ""};
    const auto out = run({nvcc->string(), "-O3", "-shared", "-Xcompiler", "-fPIC", "-Xptxas=-v",
                          "-gencode=arch=compute_90a,code=sm_90a",
                          std::string(KHARNESS_SOURCE_DIR) + "/tests/profile/kernels/static_probe.cu", "-o",
                          b.library.string()},
                         dir, std::chrono::minutes(3));
    if (out.exit_code() != 0) throw Error("nvcc failed on static_probe.cu: " + out.out);
    b.log = out.out;
    return b;
  }();
  return built;
}

#define KH_REQUIRE_NVCC() \
  if (!probe()) GTEST_SKIP() << "nvcc not found: static analysis needs the CUDA toolkit"

const KernelResources& resources_of(const std::vector<KernelResources>& all, const std::string& fragment) {
  const auto it = std::find_if(all.begin(), all.end(), [&](const KernelResources& k) {
    return k.name.find(fragment) != std::string::npos;
  });
  if (it == all.end()) throw Error("no kernel " + fragment);
  return *it;
}

const SassSummary& sass_of(const std::vector<SassSummary>& all, const std::string& fragment) {
  const auto it = std::find_if(all.begin(), all.end(), [&](const SassSummary& k) {
    return k.function.find(fragment) != std::string::npos;
  });
  if (it == all.end()) throw Error("no function " + fragment);
  return *it;
}

TEST(PtxasResources, ParsesEveryEntryOfARealBuild) {
  KH_REQUIRE_NVCC();
  const auto r = parse_ptxas_resources(probe()->log);
  ASSERT_EQ(r.size(), 6u) << probe()->log;
  for (const auto& k : r) EXPECT_EQ(k.arch, "sm_90a") << k.name;
  const auto& spill = resources_of(r, "spilling");
  EXPECT_LE(spill.registers, 32);  // __launch_bounds__(256, 8)
  EXPECT_GT(spill.spill_store_bytes, 0);
  EXPECT_GT(spill.spill_load_bytes, 0);
  const auto& local = resources_of(r, "indexed_local");
  EXPECT_GE(local.stack_bytes, 1024);  // float[256] in local memory
  EXPECT_EQ(local.barriers, 1);
  EXPECT_EQ(resources_of(r, "wide_copy").spill_store_bytes, 0);
}

TEST(SassScan, FindsTensorCoresWideLoadsAndLocalMemory) {
  KH_REQUIRE_NVCC();
  const auto cuobjdump = find_cuobjdump();
  if (!cuobjdump) GTEST_SKIP() << "cuobjdump not found (scripts/setup.sh fetches it)";
  const auto out = run({cuobjdump->string(), "-sass", probe()->library.string()},
                       probe()->library.parent_path(), std::chrono::minutes(1));
  ASSERT_EQ(out.exit_code(), 0) << out.out;
  const auto sass = parse_sass(out.out);
  ASSERT_EQ(sass.size(), 6u);
  EXPECT_GT(sass_of(sass, "tensor_core").hmma, 0);
  EXPECT_EQ(sass_of(sass, "narrow_copy").tensor, 0);
  EXPECT_GT(sass_of(sass, "wide_copy").global_loads_128, 0);
  EXPECT_EQ(sass_of(sass, "narrow_copy").global_loads_128, 0);
  EXPECT_GT(sass_of(sass, "narrow_copy").global_loads, 0);
  EXPECT_GT(sass_of(sass, "spilling").local_stores, 0);
  EXPECT_GT(sass_of(sass, "indexed_local").barriers, 0);
  EXPECT_EQ(sass_of(sass, "wide_copy").arch, "sm_90a");
  EXPECT_GT(sass_of(sass, "async_stream").async_copies_wide, 0);
  EXPECT_EQ(sass_of(sass, "async_stream").global_loads_128, 0);
  EXPECT_GT(sass_of(sass, "async_stream").global_loads, 0);  // the scale
  EXPECT_EQ(sass_of(sass, "narrow_copy").async_copies_wide, 0);
}

TEST(StaticAnalysis, WarnsOnTheRealBinary) {
  KH_REQUIRE_NVCC();
  if (!find_cuobjdump()) GTEST_SKIP() << "cuobjdump not found (scripts/setup.sh fetches it)";
  const StaticReport r = analyse_binary(probe()->library, probe()->log, {ComputeUnit::fp32, true});
  EXPECT_TRUE(r.note.empty()) << r.note;
  auto has = [&](const std::string& kind, const std::string& kernel) {
    return std::any_of(r.warnings.begin(), r.warnings.end(), [&](const StaticWarning& w) {
      return w.kind == kind && w.kernel.find(kernel) != std::string::npos;
    });
  };
  EXPECT_TRUE(has("spills", "spilling("));
  EXPECT_TRUE(has("local_memory", "indexed_local("));
  EXPECT_TRUE(has("narrow_loads", "narrow_copy("));
  EXPECT_FALSE(has("narrow_loads", "wide_copy("));
  EXPECT_FALSE(has("narrow_loads", "async_stream("));  // its bytes move by cp.async
  EXPECT_FALSE(has("no_tensor_cores", ""));            // fp32 operator: tensor cores not expected
}

// The rule table with synthetic evidence: each rule fires on its case and only there.
TEST(StaticRules, MatmulWithoutTensorCores) {
  SassSummary ffma_only;
  ffma_only.function = "_Z4gemmv";
  ffma_only.ffma = 4096;
  ffma_only.global_loads = 10;
  ffma_only.global_loads_128 = 10;
  auto w = static_warnings({}, {ffma_only}, {ComputeUnit::bf16_tensor, false});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, "no_tensor_cores");
  SassSummary hgmma = ffma_only;
  hgmma.hgmma = hgmma.tensor = 64;
  EXPECT_TRUE(static_warnings({}, {hgmma}, {ComputeUnit::bf16_tensor, false}).empty());
  w = static_warnings({}, {hgmma}, {ComputeUnit::fp8_tensor, false});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, "fp8_without_qgmma");
}

TEST(StaticRules, SpillsAndNarrowLoads) {
  KernelResources k{"_Z1kv", "sm_90a", 255, 0, 0, 512, 256, 256};
  SassSummary f;
  f.function = "_Z1kv";
  f.global_loads = 8;
  f.local_loads = f.local_stores = 4;
  auto w = static_warnings({k}, {f}, {ComputeUnit::fp32, true});
  ASSERT_EQ(w.size(), 2u);  // spills (not also local_memory: the spills explain it), narrow loads
  EXPECT_EQ(w[0].kind, "spills");
  EXPECT_EQ(w[0].kernel, "k()");
  EXPECT_EQ(w[1].kind, "narrow_loads");
  EXPECT_TRUE(static_warnings({k}, {f}, {ComputeUnit::fp32, false}).size() ==
              1u);  // compute-bound: no load rule
}

TEST(StaticRules, ScalarLoadsBesideTmaOrCpAsyncAreNotNarrowLoads) {
  const std::string head =
      "\tcode for sm_90a\n\t\tFunction : _Z6streamv\n"
      "        /*0100*/                   LDG.E R2, desc[UR4][R6.64] ;\n";
  for (const char* op : {"UTMALDG.2D [UR8], [UR4]", "LDGSTS.E.BYPASS.LTC128B.128 [R3], desc[UR4][R4.64]",
                         "UBLKCP.S.G [UR4], [UR6], UR8"}) {
    const auto sass = parse_sass(head + "        /*0110*/                   " + op + " ;\n");
    EXPECT_TRUE(static_warnings({}, sass, {ComputeUnit::fp32, true}).empty()) << op;
  }
  // The scalar load alone, or beside a 4-byte cp.async, is how the bytes move: warned.
  EXPECT_EQ(static_warnings({}, parse_sass(head), {ComputeUnit::fp32, true}).size(), 1u);
  const auto narrow_async =
      parse_sass(head + "        /*0110*/                   LDGSTS.E [R3], desc[UR4][R4.64] ;\n");
  EXPECT_EQ(static_warnings({}, narrow_async, {ComputeUnit::fp32, true}).size(), 1u);
}

TEST(SassScan, CountsWideAsynchronousCopies) {
  const auto sass = parse_sass(
      "\tcode for sm_90a\n\t\tFunction : _Z6streamv\n"
      "        /*0100*/                   UTMALDG.2D [UR8], [UR4] ;\n"
      "        /*0110*/              @!P0 LDGSTS.E.BYPASS.LTC128B.128 [R3], desc[UR4][R4.64] ;\n"
      "        /*0120*/                   LDGSTS.E [R3], desc[UR4][R4.64] ;\n"
      "        /*0130*/                   LDG.E R2, desc[UR4][R6.64] ;\n");
  ASSERT_EQ(sass.size(), 1u);
  EXPECT_EQ(sass[0].async_copies_wide, 2);  // the 4-byte LDGSTS is not wide
  EXPECT_EQ(sass[0].global_loads, 1);
  EXPECT_EQ(sass[0].global_loads_128, 0);
}

}  // namespace
}  // namespace kh::profile
