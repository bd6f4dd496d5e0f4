#include "trace/axis_binding.h"

#include <gtest/gtest.h>

#include "trace/json_io.h"

namespace kh {
namespace {

const char* kGdn = R"J({"name":"g","op_type":"gdn",
  "axes":{"len_cu_seqlens":{"type":"var"},"num_seqs":{"type":"var"},"total_seq_len":{"type":"var"},"H":{"type":"const","value":4}},
  "constraints":["len_cu_seqlens == num_seqs + 1","total_seq_len == cu_seqlens[-1].item()"],
  "inputs":{"q":{"shape":["total_seq_len","H"],"dtype":"bfloat16"},"cu_seqlens":{"shape":["len_cu_seqlens"],"dtype":"int64"},
            "state":{"shape":["num_seqs","H"],"dtype":"float32"}},
  "outputs":{"o":{"shape":["total_seq_len","H"],"dtype":"bfloat16"}},"reference":"def run(): pass"})J";

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

TEST(AxisBinding, FromWorkload) {
  const Definition d = parse_definition(kGdn);
  const Trace t = parse_trace_line(
      R"({"definition":"g","workload":{"uuid":"u","axes":{"len_cu_seqlens":5,"num_seqs":4,"total_seq_len":9},"inputs":{}}})");
  const AxisValues axes = bind_axes(d, t.workload);
  EXPECT_EQ(axes.at("H"), 4);
  EXPECT_EQ(axes.at("total_seq_len"), 9);
}

TEST(AxisBinding, FailingConstraintNamesTextAndValues) {
  const Definition d = parse_definition(kGdn);
  const Trace t = parse_trace_line(
      R"({"definition":"g","workload":{"uuid":"u","axes":{"len_cu_seqlens":5,"num_seqs":5,"total_seq_len":9},"inputs":{}}})");
  try {
    (void)bind_axes(d, t.workload);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(),
                         "constraint 'len_cu_seqlens == num_seqs + 1' failed: len_cu_seqlens=5, num_seqs=5"))
        << e.what();
  }
}

TEST(AxisBinding, MissingVarAxis) {
  const Definition d = parse_definition(kGdn);
  const Trace t =
      parse_trace_line(R"({"definition":"g","workload":{"uuid":"u","axes":{"num_seqs":4},"inputs":{}}})");
  EXPECT_THROW((void)bind_axes(d, t.workload), Error);
}

TEST(AxisBinding, FromShapes) {
  const Definition d = parse_definition(kGdn);
  const AxisValues axes = bind_axes_from_shapes(d, {{"q", {9, 4}}, {"cu_seqlens", {5}}, {"state", {4, 4}}});
  EXPECT_EQ(axes.at("num_seqs"), 4);
  EXPECT_EQ(axes.at("len_cu_seqlens"), 5);
}

TEST(AxisBinding, ConflictingShapes) {
  const Definition d = parse_definition(kGdn);
  try {
    (void)bind_axes_from_shapes(d, {{"q", {7, 4}}, {"o", {9, 4}}, {"cu_seqlens", {5}}, {"state", {4, 4}}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "axis total_seq_len is 9 from o.shape[0] but 7 from q.shape[0]"))
        << e.what();
  }
}

TEST(AxisBinding, RankAndConstMismatch) {
  const Definition d = parse_definition(kGdn);
  try {
    (void)bind_axes_from_shapes(d, {{"q", {7, 4, 1}}, {"cu_seqlens", {5}}, {"state", {4, 4}}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(
        contains(e.what(), "'q' has rank 3 but the definition gives shape [total_seq_len, H] (rank 2)"))
        << e.what();
  }
  try {
    (void)bind_axes_from_shapes(d, {{"q", {7, 8}}, {"cu_seqlens", {5}}, {"state", {4, 4}}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "axis H is const 4 but q.shape[1] is 8")) << e.what();
  }
}

class Data : public expr::TensorAccess {
 public:
  std::optional<std::vector<std::int64_t>> shape(std::string_view) const override { return std::nullopt; }
  std::optional<double> value_at(std::string_view name, std::int64_t i) const override {
    if (name != "cu_seqlens") return std::nullopt;
    return static_cast<double>(i) * 2.0;  // 0, 2, 4, 6, 8
  }
};

TEST(AxisBinding, ItemConstraintUsesData) {
  const Definition d = parse_definition(kGdn);
  const Data data;
  EXPECT_NO_THROW(
      (void)bind_axes_from_shapes(d, {{"q", {8, 4}}, {"cu_seqlens", {5}}, {"state", {4, 4}}}, &data));
  try {
    (void)bind_axes_from_shapes(d, {{"q", {9, 4}}, {"cu_seqlens", {5}}, {"state", {4, 4}}}, &data);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(
        e.what(),
        "constraint 'total_seq_len == cu_seqlens[-1].item()' failed: total_seq_len=9, cu_seqlens.shape=[5]"))
        << e.what();
  }
}

}  // namespace
}  // namespace kh
