// The request ledger: totals by kind, a workload's share as the difference of two
// snapshots, and a worker's phases taken only where they are numbers.
#include "eval/request_ledger.h"

#include <gtest/gtest.h>

namespace kh {
namespace {

using json = nlohmann::ordered_json;

TEST(RequestLedger, AWorkloadsShareIsWhatCameAfterTheSnapshot) {
  RequestLedger ledger;
  ledger.add("check", 10.0, 100, {{"phases_ms", {{"generate", 2.0}, {"call", 1.0}}}});
  const json before = ledger.totals();
  ledger.add("check", 20.0, 300, {{"phases_ms", {{"generate", 3.0}, {"call", 4.0}}}});
  ledger.add("time", 50.0, 0,
             {{"setup_ms", {{"generate", 5.0}}}, {"phases_ms", {{"timed", 40.0}}}, {"handled_ms", 47.5}});

  const json share = ledger.since(before);
  EXPECT_EQ(share.at("check").value("count", 0.0), 1.0) << share.dump();
  EXPECT_EQ(share.at("check").value("wall_ms", 0.0), 20.0);
  EXPECT_EQ(share.at("check").value("reply_bytes", 0.0), 300.0);
  EXPECT_EQ(share.at("check").at("worker_ms").value("generate", 0.0), 3.0);
  EXPECT_EQ(share.at("check").at("worker_ms").value("call", 0.0), 4.0);
  // Both of a time reply's groups count, under the phase names they carry.
  EXPECT_EQ(share.at("time").at("worker_ms").value("generate", 0.0), 5.0);
  EXPECT_EQ(share.at("time").at("worker_ms").value("timed", 0.0), 40.0);
  // The worker's whole time on the request: the wall time less it is the transport.
  EXPECT_EQ(share.at("time").at("worker_ms").value("handled", 0.0), 47.5);
  EXPECT_EQ(ledger.totals().at("check").value("count", 0.0), 2.0);
}

TEST(RequestLedger, KindsWithNoNewRequestAreLeftOutAndForgedPhasesIgnored) {
  RequestLedger ledger;
  ledger.add("peaks", 5.0, 0, json::object());
  const json before = ledger.totals();
  // A worker's reply is its word: a phase that is not a number, or a group that is not
  // an object, must neither throw nor count.
  ledger.add("check", 1.0, 0, {{"phases_ms", {{"call", "slow"}, {"download", 0.5}}}});
  ledger.add("check", 1.0, 0, {{"phases_ms", "fast"}, {"handled_ms", "quick"}});
  ledger.add("timed_outputs", 2.0, 10, nullptr);  // a request that timed out: no reply
  const json share = ledger.since(before);
  EXPECT_FALSE(share.contains("peaks")) << share.dump();
  EXPECT_FALSE(share.at("check").at("worker_ms").contains("call")) << share.dump();
  EXPECT_FALSE(share.at("check").at("worker_ms").contains("handled")) << share.dump();
  EXPECT_EQ(share.at("check").at("worker_ms").value("download", 0.0), 0.5);
  EXPECT_EQ(share.at("check").value("count", 0.0), 2.0);
  EXPECT_EQ(share.at("timed_outputs").value("count", 0.0), 1.0);
}

}  // namespace
}  // namespace kh
