// BuildCache with g++: builds, signature checks, caching, timeouts, races.
#include "compile/build_cache.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "build_fixtures.h"
#include "compile/include_dir.h"
#include "error/error.h"

namespace kh {
namespace {
using test::scale_add_request;
using test::ScopedEnv;
using test::ScratchCache;

// The entry file with the function's parameter list replaced.
std::string entry_with(const std::string& params, const std::string& ret = "void") {
  return "#include <kharness/kernel.h>\n" + ret + " scale_add(" + params + ") { return" +
         (ret == "void" ? "" : " {}") + "; }\n";
}

BuildResult expect_mismatch(const std::string& entry, const std::string& message) {
  ScratchCache scratch;
  const BuildResult r = scratch.cache().build(scale_add_request(entry));
  EXPECT_EQ(r.status, BuildResult::Status::compile_error) << r.log;
  EXPECT_EQ(r.message, message) << r.log;
  EXPECT_TRUE(r.library.empty());
  return r;
}

TEST(BuildCache, BuildsACorrectSolutionIntoTheCacheLayout) {
  ScratchCache scratch;
  const BuildResult r = scratch.cache().build(scale_add_request());
  ASSERT_EQ(r.status, BuildResult::Status::ok) << r.log;
  EXPECT_FALSE(r.cache_hit);
  EXPECT_EQ(r.key.size(), 64u);
  EXPECT_TRUE(r.message.empty());
  const std::filesystem::path entry = scratch.cache().dir() / r.key.substr(0, 2) / r.key;
  EXPECT_EQ(r.library, entry / "lib.so");
  EXPECT_TRUE(std::filesystem::is_regular_file(entry / "lib.so"));
  EXPECT_TRUE(std::filesystem::is_regular_file(entry / "build.log"));
  std::ifstream meta_in(entry / "meta.json");
  const auto meta = nlohmann::json::parse(meta_in);
  EXPECT_EQ(meta.at("status"), "ok");
  EXPECT_EQ(meta.at("key"), r.key);
  EXPECT_NE(r.log.find("-fPIC"), std::string::npos) << "the log starts with the command";
  EXPECT_FALSE(std::filesystem::exists(entry / "work")) << "sources are not kept in the cache entry";
}

TEST(BuildCache, SecondBuildIsAFastHit) {
  ScratchCache scratch;
  const BuildResult first = scratch.cache().build(scale_add_request());
  ASSERT_EQ(first.status, BuildResult::Status::ok) << first.log;
  const BuildResult second = scratch.cache().build(scale_add_request());
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.status, BuildResult::Status::ok);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.library, first.library);
  EXPECT_EQ(second.log, first.log);
  EXPECT_LT(second.seconds, 0.5);
  EXPECT_LT(second.seconds, first.seconds);
}

TEST(BuildCache, KeyChangesWithEveryInput) {
  ScratchCache scratch;
  const BuildCache& cache = scratch.cache();
  const BuildRequest base = scale_add_request();
  const std::string key = cache.key(base);
  EXPECT_EQ(cache.key(base), key);

  std::set<std::string> keys{key};
  auto differs = [&](BuildRequest r, const char* what) {
    EXPECT_TRUE(keys.insert(cache.key(r)).second) << what << " did not change the key";
  };
  BuildRequest r = base;
  r.sources[2].content.back() = ' ';
  differs(r, "one byte of a source");
  r = base;
  r.sources[1].path = "detail/scale2.h";
  differs(r, "a source path");
  r = base;
  r.defines = {"BLOCK=128"};
  differs(r, "a define");
  r.defines = {"BLOCK=256"};
  differs(r, "a define's value");
  r = base;
  r.extra_flags = {"-g"};
  differs(r, "a flag");
  r = base;
  r.signature.params[2].dtype = DType::int32;
  differs(r, "a signature dtype");
  r = base;
  r.signature.params[0].dtype = DType::bfloat16;  // same C type, different shim text
  differs(r, "a tensor dtype");
  r = base;
  r.timeout = std::chrono::seconds(7);
  EXPECT_EQ(cache.key(r), key) << "the timeout does not change what is built";
}

TEST(BuildCache, ChangedSourceOrDefineIsAMiss) {
  ScratchCache scratch;
  const BuildResult first = scratch.cache().build(scale_add_request());
  ASSERT_EQ(first.status, BuildResult::Status::ok) << first.log;
  BuildRequest changed = scale_add_request();
  changed.sources[2].content += " ";
  const BuildResult second = scratch.cache().build(changed);
  EXPECT_FALSE(second.cache_hit);
  EXPECT_NE(second.key, first.key);
  EXPECT_NE(second.library, first.library);
  BuildRequest defined = scale_add_request();
  defined.defines = {"KH_UNUSED_KNOB=1"};
  const BuildResult third = scratch.cache().build(defined);
  EXPECT_FALSE(third.cache_hit);
  EXPECT_EQ(third.status, BuildResult::Status::ok) << third.log;
}

TEST(BuildCache, WrongTypeForArgumentTwo) {
  expect_mismatch(
      entry_with("const DLTensor*, const float*, float, DLTensor*, kh_stream_t"),
      "kharness: entry 'scale_add' argument 2 ('y', input float32 tensor) must be 'const DLTensor*'");
}

TEST(BuildCache, NonConstInput) {
  expect_mismatch(
      entry_with("DLTensor*, const DLTensor*, float, DLTensor*, kh_stream_t"),
      "kharness: entry 'scale_add' argument 1 ('x', input float32 tensor) must be 'const DLTensor*'");
}

TEST(BuildCache, WrongScalarType) {
  expect_mismatch(entry_with("const DLTensor*, const DLTensor*, double, DLTensor*, kh_stream_t"),
                  "kharness: entry 'scale_add' argument 3 ('alpha', scalar float32) must be 'float'");
}

TEST(BuildCache, WrongArity) {
  const BuildResult r = expect_mismatch(
      entry_with("const DLTensor*, const DLTensor*, float, DLTensor*"),
      "kharness: entry 'scale_add' takes 4 arguments; the definition needs 5: x, y, alpha, out, stream");
  EXPECT_EQ(r.log.find("argument 1 ("), std::string::npos)
      << "arity mismatch must not cascade into per-argument errors";
}

TEST(BuildCache, WrongReturnType) {
  expect_mismatch(entry_with("const DLTensor*, const DLTensor*, float, DLTensor*, void*", "float"),
                  "kharness: entry 'scale_add' must return void or int (non-zero = failure)");
}

TEST(BuildCache, VoidPointerStreamAndIntReturnAreAccepted) {
  ScratchCache scratch;
  const BuildResult r = scratch.cache().build(
      scale_add_request(entry_with("const DLTensor*, const DLTensor*, float, DLTensor*, void*", "int")));
  EXPECT_EQ(r.status, BuildResult::Status::ok) << r.log;
}

TEST(BuildCache, UndeclaredEntryIsACompileErrorWithTheHintInTheLog) {
  ScratchCache scratch;
  const BuildResult r =
      scratch.cache().build(scale_add_request("#include <kharness/kernel.h>\nvoid other() {}\n"));
  EXPECT_EQ(r.status, BuildResult::Status::compile_error);
  EXPECT_NE(r.message.find("scale_add"), std::string::npos) << r.message;
  EXPECT_NE(r.log.find("kharness: the entry function 'scale_add' must be declared"), std::string::npos)
      << r.log;
}

TEST(BuildCache, CompileErrorsAreCachedWithTheirLog) {
  ScratchCache scratch;
  const BuildRequest broken = scale_add_request("this is not C++\n");
  const BuildResult first = scratch.cache().build(broken);
  ASSERT_EQ(first.status, BuildResult::Status::compile_error);
  EXPECT_NE(first.message.find("error"), std::string::npos) << first.message;
  EXPECT_NE(first.message.find("kernel.cpp"), std::string::npos) << "paths in the log are solution-relative";
  const BuildResult second = scratch.cache().build(broken);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.status, BuildResult::Status::compile_error);
  EXPECT_EQ(second.message, first.message);
  EXPECT_EQ(second.log, first.log);
}

// A shell script standing in for g++ at `path`: it answers --version, and runs `body`
// for a compile. Executable by all, as installed compilers are: the jail runs it as
// another user.
std::filesystem::path fake_compiler(const std::filesystem::path& path, const std::string& body) {
  {
    std::ofstream script(path);
    script << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '" << path.filename().string()
           << " 0.0'; exit 0; fi\n"
           << body << "\n";
  }
  using std::filesystem::perms;
  std::filesystem::permissions(path, perms::owner_all | perms::group_read | perms::group_exec |
                                         perms::others_read | perms::others_exec);
  return path;
}

TEST(BuildCache, FakeCompilerThatHangsTimesOut) {
  ScratchCache scratch;
  ScopedEnv env("KHARNESS_GXX", fake_compiler(scratch.root() / "slow-g++", "sleep 60 & sleep 60").string());
  BuildRequest r = scale_add_request();
  r.timeout = std::chrono::seconds(1);
  const auto start = std::chrono::steady_clock::now();
  const BuildResult result = scratch.cache().build(r);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  EXPECT_EQ(result.status, BuildResult::Status::timeout);
  EXPECT_EQ(result.message, "compile did not finish within 1 s");
  EXPECT_FALSE(scratch.cache().lookup(result.key)) << "timeouts are not cached";
  EXPECT_TRUE(std::filesystem::is_empty(scratch.cache().dir() / result.key.substr(0, 2)))
      << "no temp dir left";
}

// A compiler the machine killed (here it kills itself, as the OOM killer or a seccomp
// filter would) says nothing about the sources: the failure is reported, not cached.
TEST(BuildCache, CompilerKilledByASignalIsNotCached) {
  ScratchCache scratch;
  const std::filesystem::path fake =
      fake_compiler(scratch.root() / "killed-g++",
                    "echo 'g++: fatal error: Killed signal terminated program cc1plus' >&2\nkill -9 $$");
  ScopedEnv env("KHARNESS_GXX", fake.string());
  const BuildResult first = scratch.cache().build(scale_add_request());
  EXPECT_EQ(first.status, BuildResult::Status::compile_error);
  EXPECT_NE(first.log.find("Killed signal"), std::string::npos) << first.log;
  EXPECT_FALSE(scratch.cache().lookup(first.key)) << "a killed compile was cached";
  const BuildResult second = scratch.cache().build(scale_add_request());
  EXPECT_FALSE(second.cache_hit);
}

TEST(BuildCache, ConstexprBombTimesOut) {
  ScratchCache scratch;
  BuildRequest r = scale_add_request(std::string(test::kScaleAddEntry) + R"(
constexpr long spin() {
  long s = 0;
  for (long i = 0; i < 200000; ++i)
    for (long j = 0; j < 200000; ++j)
      for (long k = 0; k < 200000; ++k) s += i ^ j ^ k;
  return s;
}
static_assert(spin() != 1);
)");
  r.timeout = std::chrono::seconds(1);
  EXPECT_EQ(scratch.cache().build(r).status, BuildResult::Status::timeout);
}

TEST(BuildCache, PathTraversalIsRejected) {
  ScratchCache scratch;
  BuildRequest r = scale_add_request();
  r.sources[1].path = "../outside.h";
  try {
    (void)scratch.cache().build(r);
    FAIL() << "a '..' path was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "sources[1].path");
  }
  r.sources[1].path = "/abs.h";
  EXPECT_THROW((void)scratch.cache().build(r), Error);
  EXPECT_FALSE(std::filesystem::exists(scratch.cache().dir() / "outside.h"));
}

TEST(BuildCache, RequestsThatCannotBeBuiltThrow) {
  ScratchCache scratch;
  BuildRequest r = scale_add_request();
  r.entry_file = "missing.cpp";
  EXPECT_THROW((void)scratch.cache().build(r), Error);
  r = scale_add_request();
  r.entry_function = "other";
  EXPECT_THROW((void)scratch.cache().build(r), Error);
  r = scale_add_request();
  r.language = "triton";
  EXPECT_THROW((void)scratch.cache().build(r), Error);
  r = scale_add_request();
  r.defines = {"-o /tmp/x"};
  EXPECT_THROW((void)scratch.cache().build(r), Error);
  r = scale_add_request();
  r.include_dir = scratch.root();
  EXPECT_THROW((void)scratch.cache().build(r), Error);
}

TEST(BuildCache, ConcurrentBuildersOfOneKeyShareOneEntry) {
  ScratchCache scratch;
  std::vector<BuildResult> results(4);
  {
    std::vector<std::jthread> threads;
    for (auto& result : results) {
      threads.emplace_back([&] { result = scratch.cache().build(scale_add_request()); });
    }
  }
  for (const BuildResult& r : results) {
    ASSERT_EQ(r.status, BuildResult::Status::ok) << r.log;
    EXPECT_EQ(r.library, results[0].library);
    EXPECT_TRUE(std::filesystem::is_regular_file(r.library));
  }
  const std::filesystem::path shard = scratch.cache().dir() / results[0].key.substr(0, 2);
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(shard)) entries.push_back(e.path().filename());
  EXPECT_EQ(entries, std::vector<std::filesystem::path>{results[0].key}) << "one entry, no temp dirs";
  EXPECT_TRUE(scratch.cache().lookup(results[0].key));
}

TEST(BuildCache, DefaultDirFollowsTheEnvironment) {
  ScopedEnv cache("KHARNESS_CACHE_DIR", "/x/cache");
  EXPECT_EQ(BuildCache::default_dir(), "/x/cache");
  ScopedEnv unset_cache("KHARNESS_CACHE_DIR", "");
  ScopedEnv xdg("XDG_CACHE_HOME", "/x/xdg");
  EXPECT_EQ(BuildCache::default_dir(), "/x/xdg/kharness/builds");
  ScopedEnv unset_xdg("XDG_CACHE_HOME", "");
  ScopedEnv home("HOME", "/x/home");
  EXPECT_EQ(BuildCache::default_dir(), "/x/home/.cache/kharness/builds");
}

TEST(IncludeDir, BuildTreeCarriesTheHeaders) {
  EXPECT_TRUE(is_include_dir(test::test_include_dir()));
  {
    ScopedEnv env("KHARNESS_INCLUDE_DIR", test::test_include_dir().string());
    EXPECT_EQ(default_include_dir(), test::test_include_dir());
  }
  ScopedEnv bad("KHARNESS_INCLUDE_DIR", "/nonexistent");
  EXPECT_THROW((void)default_include_dir(), Error);
}

}  // namespace
}  // namespace kh

namespace kh {
namespace {

TEST(BuildCache, DamagedEntryIsReportedNotHandedOut) {
  test::ScratchCache scratch;
  const BuildResult r = scratch.cache().build(test::scale_add_request());
  ASSERT_EQ(r.status, BuildResult::Status::ok) << r.log;
  std::filesystem::remove(r.library);
  EXPECT_THROW((void)scratch.cache().build(test::scale_add_request()), Error);
  std::ofstream(scratch.cache().entry_dir(r.key) / "meta.json") << "{not json";
  EXPECT_THROW((void)scratch.cache().lookup(r.key), Error);
}

}  // namespace
}  // namespace kh
