#include "profile/shape_regimes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "trace/trace_set.h"

namespace kh::profile {
namespace {

Definition one_axis(const std::string& axis) {
  Definition d;
  d.name = "synthetic";
  d.axes.add(axis, Axis{VarAxis{}, "", {}});
  return d;
}

std::vector<Workload> sized(const std::string& axis, const std::vector<std::int64_t>& values) {
  std::vector<Workload> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Workload w;
    w.uuid = "w" + std::to_string(i);
    w.axes.add(axis, values[i]);
    out.push_back(std::move(w));
  }
  return out;
}

// Every workload in exactly one regime, representatives among the members.
void expect_partition(const RegimePlan& plan, std::size_t n) {
  std::multiset<std::size_t> seen;
  for (const Regime& r : plan.regimes) {
    EXPECT_FALSE(r.members.empty()) << r.name;
    for (std::size_t i : r.members) seen.insert(i);
    for (std::size_t rep : r.representatives) {
      EXPECT_NE(std::find(r.members.begin(), r.members.end(), rep), r.members.end()) << r.name;
    }
  }
  EXPECT_EQ(seen.size(), n);
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), n) << "a workload in two regimes";
}

TEST(ShapeRegimes, SplitsWhereSizesJump) {
  const Definition d = one_axis("batch_size");
  const auto w = sized("batch_size", {1, 2, 3, 4, 100, 110, 120, 130, 10000, 12000, 11000, 9000});
  const RegimePlan plan = discover_regimes(d, w, var_axes_product(d, w), "batch_size");
  ASSERT_EQ(plan.regimes.size(), 3u);
  EXPECT_EQ(plan.regimes[0].axes_range, "batch_size 1..4");
  EXPECT_EQ(plan.regimes[1].axes_range, "batch_size 100..130");
  EXPECT_EQ(plan.regimes[2].axes_range, "batch_size 9000..12000");
  expect_partition(plan, w.size());
  EXPECT_NE(plan.regimes[0].reason.find("jump"), std::string::npos) << plan.regimes[0].reason;
}

TEST(ShapeRegimes, HeavyOutlierStandsAlone) {
  const Definition d = one_axis("seq_len");
  // 14107 carries ~77% of the summed size.
  const auto w = sized("seq_len", {1, 7, 14, 15, 16, 32, 52, 55, 58, 62, 80, 901, 3000, 14107});
  const RegimePlan plan = discover_regimes(d, w, var_axes_product(d, w), "seq_len");
  ASSERT_GE(plan.regimes.size(), 3u);
  ASSERT_LE(plan.regimes.size(), 4u);
  const Regime& last = plan.regimes.back();
  EXPECT_EQ(last.name, "outlier 1");
  ASSERT_EQ(last.members.size(), 1u);
  EXPECT_EQ(w[last.members[0]].axes.find("seq_len") != nullptr ? *w[last.members[0]].axes.find("seq_len") : 0,
            14107);
  EXPECT_GT(last.cost_share, 1.0 / 3.0);
  expect_partition(plan, w.size());
}

TEST(ShapeRegimes, DeterministicAndOrderIndependentInContent) {
  const Definition d = one_axis("M");
  const auto w = sized("M", {8, 1, 4096, 64, 2, 512, 16, 1024, 32, 128, 256, 2048, 4, 8192});
  const RegimePlan a = discover_regimes(d, w, var_axes_product(d, w), "M");
  const RegimePlan b = discover_regimes(d, w, var_axes_product(d, w), "M");
  ASSERT_EQ(a.regimes.size(), b.regimes.size());
  for (std::size_t i = 0; i < a.regimes.size(); ++i) {
    EXPECT_EQ(a.regimes[i].members, b.regimes[i].members);
    EXPECT_EQ(a.regimes[i].representatives, b.regimes[i].representatives);
  }
  EXPECT_EQ(a.explain(), b.explain());
}

TEST(ShapeRegimes, FewDistinctSizesGiveFewRegimes) {
  const Definition d = one_axis("batch_size");
  const auto w = sized("batch_size", {64, 64, 64, 1, 1});
  const RegimePlan plan = discover_regimes(d, w, var_axes_product(d, w), "batch_size");
  EXPECT_EQ(plan.regimes.size(), 2u);
  expect_partition(plan, w.size());
}

TEST(ShapeRegimes, RejectsBadCosts) {
  const Definition d = one_axis("n");
  const auto w = sized("n", {1, 2});
  EXPECT_THROW((void)discover_regimes(d, w, {1.0}, "x"), Error);
  EXPECT_THROW((void)discover_regimes(d, w, {1.0, 0.0}, "x"), Error);
}

// The contest's workload sets, as shipped in ../shared: 3 or 4 regimes each, every
// workload placed once.
TEST(ShapeRegimes, ContestWorkloadSets) {
  const std::filesystem::path shared = std::filesystem::path(KHARNESS_SHARED_DIR) / "flashinfer-trace";
  if (!std::filesystem::exists(shared)) GTEST_SKIP() << "../shared/flashinfer-trace is absent";
  const TraceSet set = load_trace_set(shared);
  std::size_t checked = 0;
  for (const auto& entry : set.definitions()) {
    const Definition& def = entry.value;
    const std::string& name = def.name;
    std::vector<Workload> w;
    for (const auto* e : set.workloads_for(name)) w.push_back(e->value.workload);
    if (w.size() < 6) continue;
    const RegimePlan plan = discover_regimes(def, w, var_axes_product(def, w), "product of var axes");
    SCOPED_TRACE(name);
    EXPECT_GE(plan.regimes.size(), 2u);
    EXPECT_LE(plan.regimes.size(), 4u);
    expect_partition(plan, w.size());
    ++checked;
  }
  EXPECT_GT(checked, 5u);
}

}  // namespace
}  // namespace kh::profile
