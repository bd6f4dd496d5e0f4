#include <gtest/gtest.h>

#include <algorithm>

#include "device/backend.h"
#include "error/error.h"

namespace kh {
namespace {

TEST(BackendRegistry, CpuIsAlwaysCompiledAndMade) {
  const std::vector<std::string> names = compiled_backends();
  EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
  const auto backend = make_backend("cpu");
  EXPECT_EQ(backend->info().backend, "cpu");
}

TEST(BackendRegistry, UnknownNameIsAnErrorListingTheCompiledOnes) {
  try {
    static_cast<void>(make_backend("tpu"));
    FAIL() << "expected kh::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown backend 'tpu'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
  }
}

TEST(BackendRegistry, MalformedCudaOrdinalIsAnError) {
  EXPECT_THROW(static_cast<void>(make_backend("cuda:")), Error);
  EXPECT_THROW(static_cast<void>(make_backend("cuda:x")), Error);
  EXPECT_THROW(static_cast<void>(make_backend("cuda:-1")), Error);
}

// Holds on every machine: a CUDA backend is made, or the error says why not (not
// compiled in, or no device), never anything else.
TEST(BackendRegistry, CudaIsMadeOrTheErrorSaysWhy) {
  try {
    const auto backend = make_backend("cuda");
    EXPECT_EQ(backend->info().backend, "cuda");
  } catch (const Error& e) {
    const std::string message = e.what();
    const bool explained = message.find("no CUDA device") != std::string::npos ||
                           message.find("not compiled into this binary") != std::string::npos;
    EXPECT_TRUE(explained) << message;
  }
}

}  // namespace
}  // namespace kh
