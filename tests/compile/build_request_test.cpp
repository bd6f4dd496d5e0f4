#include "compile/build_request.h"

#include <gtest/gtest.h>

#include "compile/toolchain.h"
#include "error/error.h"

namespace kh {
namespace {

TEST(BuildRequest, ArchForComputeCapability) {
  EXPECT_EQ(arch_for_compute_capability(90), "sm_90a");
  EXPECT_EQ(arch_for_compute_capability(100), "sm_100a");
  EXPECT_EQ(arch_for_compute_capability(120), "sm_120a");
  EXPECT_EQ(arch_for_compute_capability(80), "sm_80");
  EXPECT_EQ(arch_for_compute_capability(89), "sm_89");
  EXPECT_EQ(arch_for_compute_capability(90, "sm_90"), "sm_90");
}

TEST(BuildRequest, StatusNamesRoundTrip) {
  for (auto s : {BuildResult::Status::ok, BuildResult::Status::compile_error, BuildResult::Status::timeout}) {
    EXPECT_EQ(parse_build_status(build_status_name(s)), s);
  }
  EXPECT_FALSE(parse_build_status("bogus"));
}

TEST(Toolchain, RegistryByNameAndLanguage) {
  EXPECT_EQ(toolchain("nvcc").language(), "cuda");
  EXPECT_EQ(toolchain("g++").language(), "cpp");
  EXPECT_EQ(toolchain_for_language("cuda").name(), "nvcc");
  EXPECT_EQ(toolchain_for_language("cpp").name(), "g++");
  EXPECT_THROW((void)toolchain("clang"), Error);
  EXPECT_THROW((void)toolchain_for_language("triton"), Error);
}

TEST(Toolchain, NvccGencodeFromArch) {
  const Toolchain& nvcc = toolchain("nvcc");
  auto has = [](const std::vector<std::string>& flags, const std::string& f) {
    return std::find(flags.begin(), flags.end(), f) != flags.end();
  };
  EXPECT_TRUE(has(nvcc.flags("sm_90a"), "-gencode=arch=compute_90a,code=sm_90a"));
  EXPECT_TRUE(has(nvcc.flags("sm_100a"), "-gencode=arch=compute_100a,code=sm_100a"));
  EXPECT_TRUE(has(nvcc.flags("sm_80"), "-gencode=arch=compute_80,code=sm_80"));
  EXPECT_TRUE(has(nvcc.flags("sm_90a"), "-O3"));
  EXPECT_TRUE(has(nvcc.flags("sm_90a"), "-lineinfo"));
  EXPECT_THROW((void)nvcc.flags(""), Error);
  EXPECT_THROW((void)nvcc.flags("compute_90"), Error);
  EXPECT_THROW((void)nvcc.flags("sm_90a,code=sm_80"), Error);
}

TEST(Toolchain, GxxFlagsArePortable) {
  const auto flags = toolchain("g++").flags("");
  EXPECT_EQ(std::find(flags.begin(), flags.end(), "-march=native"), flags.end());
  EXPECT_NE(std::find(flags.begin(), flags.end(), "-fPIC"), flags.end());
}

}  // namespace
}  // namespace kh
