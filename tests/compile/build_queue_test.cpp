#include "compile/build_queue.h"

#include <gtest/gtest.h>

#include "build_fixtures.h"

namespace kh {
namespace {

TEST(BuildQueue, KeepsRequestOrderAndIsolatesRejectedRequests) {
  test::ScratchCache scratch;
  std::vector<BuildRequest> requests{test::scale_add_request(), test::scale_add_request("not C++\n"),
                                     test::scale_add_request(), test::scale_add_request()};
  requests[2].sources[1].path = "../escape.h";
  requests[3].defines = {"VARIANT=2"};
  const std::vector<BuildResult> results = build_all(scratch.cache(), requests, 2);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status, BuildResult::Status::ok) << results[0].log;
  EXPECT_EQ(results[1].status, BuildResult::Status::compile_error);
  EXPECT_NE(results[1].message.find("kernel.cpp"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[2].status, BuildResult::Status::compile_error);
  EXPECT_NE(results[2].message.find("sources[1].path"), std::string::npos) << results[2].message;
  EXPECT_EQ(results[3].status, BuildResult::Status::ok) << results[3].log;
  EXPECT_NE(results[0].key, results[3].key);
}

TEST(BuildQueue, EmptyAndSerial) {
  test::ScratchCache scratch;
  EXPECT_TRUE(build_all(scratch.cache(), {}, 4).empty());
  const auto one = build_all(scratch.cache(), {test::scale_add_request()}, 0);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].status, BuildResult::Status::ok) << one[0].log;
}

}  // namespace
}  // namespace kh
