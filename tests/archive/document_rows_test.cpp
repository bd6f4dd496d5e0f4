// What the archive reads from a trace line: a speedup only where the reference was timed.
#include "archive/document_rows.h"

#include <gtest/gtest.h>

#include <string>

namespace kh::archive {
namespace {

std::string trace_line(double reference_ms, double speedup) {
  return R"({"definition":"d","solution":"s","workload":{"uuid":"u","axes":{},"inputs":{}},)"
         R"("evaluation":{"status":"PASSED","environment":{"hardware":"H200","libs":{}},)"
         R"("timestamp":"2026-11-30T00:00:00Z","correctness":null,"performance":{"latency_ms":0.5,)"
         R"("reference_latency_ms":)" +
         std::to_string(reference_ms) + R"(,"speedup_factor":)" + std::to_string(speedup) + R"(},"log":""}})";
}

TEST(TraceRowFacts, ASpeedupIsKnownOnlyWhereTheReferenceWasTimed) {
  const TraceRow timed = trace_row(trace_line(1.0, 2.0), Location{"t.jsonl", 1, ""});
  ASSERT_TRUE(timed.facts.speedup.has_value());
  EXPECT_DOUBLE_EQ(*timed.facts.speedup, 2.0);
  // `kharness profile` and `eval` with no reference timing write 0 for both, as the format
  // has no null there: stored as 0x it would read as a total slowdown.
  const TraceRow untimed = trace_row(trace_line(0.0, 0.0), Location{"t.jsonl", 2, ""});
  EXPECT_FALSE(untimed.facts.speedup.has_value());
  ASSERT_TRUE(untimed.facts.latency_ms.has_value());
  EXPECT_DOUBLE_EQ(*untimed.facts.latency_ms, 0.5);
}

}  // namespace
}  // namespace kh::archive
