// GPU test (label gpu), in an executable of its own: an illegal address breaks the
// CUDA context for the rest of the process, so nothing may run after it.
#include <gtest/gtest.h>

#include "device/backend.h"
#include "error/error.h"
#include "gpu_required.h"
#include "test_kernels.h"

namespace kh {
namespace {

TEST(CudaBackendStickyError, IllegalAddressThrowsAndIsSticky) {
  KH_REQUIRE_GPU();
  const auto backend = make_backend("cuda");
  EXPECT_FALSE(backend->sticky());
  test::launch_illegal_write(static_cast<cudaStream_t>(backend->stream()));
  try {
    backend->synchronize();
    FAIL() << "synchronize() after an illegal write must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cudaDeviceSynchronize"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(backend->sticky());
  EXPECT_THROW(backend->synchronize(), Error);  // and it stays broken
}

}  // namespace
}  // namespace kh
