// `kharness eval --no-timing`: correctness only, as the profiler's ncu session runs it.
// Nothing is timed, and nothing in the output pretends otherwise.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kharness_command.h"

namespace {

using kh::cli_test::CommandResult;
using kh::cli_test::run;
using kh::cli_test::Stderr;

const std::string kArgs =
    "eval --definition rmsnorm_h4096 --baseline --backend cpu --small --trials 2 --no-timing";

TEST(CliEvalNoTiming, ChecksEveryWorkloadAndClaimsNoTiming) {
  const CommandResult r = run(kArgs + " --json", Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j.at("traces").empty());
  for (const auto& t : j["traces"]) {
    const auto& ev = t.at("evaluation");
    EXPECT_EQ(ev.at("status"), "PASSED");
    EXPECT_FALSE(ev.contains("performance")) << ev.dump();
    const auto& ours = ev.at("kharness");
    EXPECT_FALSE(ours.contains("latency")) << ours.dump();
    EXPECT_EQ(ours.at("correctness_seeds").size(), 2u) << "--trials 2 is still two checks";
    const auto& protocol = ours.at("protocol");
    EXPECT_EQ(protocol.at("timing"), "none (--no-timing): correctness only");
    EXPECT_FALSE(protocol.contains("iterations")) << protocol.dump();
    EXPECT_FALSE(protocol.contains("statistic")) << protocol.dump();
  }
}

TEST(CliEvalNoTiming, SaysSoWhenItStarts) {
  const CommandResult r = run(kArgs);
  ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("correctness only (no timing)"), std::string::npos) << r.out;
}

}  // namespace
