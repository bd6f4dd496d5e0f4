#include <gtest/gtest.h>

#include <map>

#include "trace/expr/expression_evaluator.h"
#include "trace/expr/parser.h"

namespace kh::expr {
namespace {

class FakeTensors : public TensorAccess {
 public:
  std::map<std::string, std::vector<std::int64_t>> shapes;
  std::map<std::string, std::vector<double>> data;
  std::optional<std::vector<std::int64_t>> shape(std::string_view n) const override {
    auto it = shapes.find(std::string(n));
    if (it == shapes.end()) return std::nullopt;
    return it->second;
  }
  std::optional<double> value_at(std::string_view n, std::int64_t i) const override {
    auto it = data.find(std::string(n));
    if (it == data.end()) return std::nullopt;
    return it->second.at(static_cast<std::size_t>(i));
  }
};

Value eval(const std::string& src, const std::map<std::string, std::int64_t>& axes = {},
           const TensorAccess* t = nullptr) {
  auto ast = parse_expression(src);
  return evaluate(*ast, Environment{&axes, t});
}

Truth truth(const std::string& src, const std::map<std::string, std::int64_t>& axes = {},
            const TensorAccess* t = nullptr) {
  auto ast = parse_expression(src);
  return evaluate_truth(*ast, Environment{&axes, t});
}

TEST(Expr, ArithmeticFollowsPython) {
  EXPECT_EQ(eval("7 // 2").i, 3);
  EXPECT_EQ(eval("-7 // 2").i, -4);
  EXPECT_EQ(eval("-7 % 3").i, 2);
  EXPECT_EQ(eval("7 % -3").i, -2);
  EXPECT_EQ(eval("2 ** 3 ** 2").i, 512);
  EXPECT_EQ(eval("-2 ** 2").i, -4);
  EXPECT_DOUBLE_EQ(eval("7 / 2").r, 3.5);
  EXPECT_DOUBLE_EQ(eval("1.5e1 + 0.5").r, 15.5);
  EXPECT_EQ(eval("(1 + 2) * 3").i, 9);
  EXPECT_EQ(eval("True + 1").i, 2);
}

TEST(Expr, ComparisonsChainAndLogic) {
  EXPECT_EQ(truth("1 < 2 < 3"), Truth::is_true);
  EXPECT_EQ(truth("1 < 3 < 2"), Truth::is_false);
  EXPECT_EQ(truth("not 1 == 2 and True"), Truth::is_true);
  EXPECT_EQ(truth("False or 2 >= 2"), Truth::is_true);
  EXPECT_EQ(truth("1 != 1"), Truth::is_false);
}

TEST(Expr, RealConstraints) {
  std::map<std::string, std::int64_t> axes{{"num_v_heads", 8}, {"num_q_heads", 4}, {"len_cu_seqlens", 5},
                                           {"num_seqs", 4},    {"topk", 2048},     {"max_num_pages", 64},
                                           {"page_size", 64},  {"num_tokens", 3},  {"total_seq_len", 10}};
  EXPECT_EQ(truth("num_v_heads % num_q_heads == 0", axes), Truth::is_true);
  EXPECT_EQ(truth("len_cu_seqlens == num_seqs + 1", axes), Truth::is_true);
  EXPECT_EQ(truth("topk <= max_num_pages * page_size", axes), Truth::is_true);
  FakeTensors t;
  t.shapes["sparse_indices"] = {3, 2048};
  t.shapes["cu_seqlens"] = {5};
  EXPECT_EQ(truth("sparse_indices.shape[0] == num_tokens", axes, &t), Truth::is_true);
  EXPECT_EQ(truth("sparse_indices.shape[-1] == topk", axes, &t), Truth::is_true);
  // No data: unknown, not an error.
  EXPECT_EQ(truth("total_seq_len == cu_seqlens[-1].item()", axes, &t), Truth::unknown);
  t.data["cu_seqlens"] = {0, 2, 5, 7, 10};
  EXPECT_EQ(truth("total_seq_len == cu_seqlens[-1].item()", axes, &t), Truth::is_true);
  t.data["cu_seqlens"] = {0, 2, 5, 7, 9};
  EXPECT_EQ(truth("total_seq_len == cu_seqlens[-1].item()", axes, &t), Truth::is_false);
}

TEST(Expr, UnknownNamesAreUnknownAndShortCircuit) {
  EXPECT_EQ(truth("x == 1"), Truth::unknown);
  EXPECT_EQ(truth("False and x == 1"), Truth::is_false);
  EXPECT_EQ(truth("x == 1 or True"), Truth::is_true);
}

TEST(Expr, ParseErrorsNamePosition) {
  try {
    (void)parse_expression("a == (b + ");
    FAIL() << "expected SyntaxError";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.position(), 10u);
    EXPECT_NE(std::string(e.what()).find("position 10"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_expression("a $ b"), SyntaxError);
  EXPECT_THROW((void)parse_expression("a.foo"), SyntaxError);
  EXPECT_THROW((void)parse_expression("a =="), SyntaxError);
  EXPECT_THROW((void)parse_expression("99999999999999999999"), SyntaxError);
  EXPECT_THROW((void)parse_expression(std::string(500, '(') + "1" + std::string(500, ')')), SyntaxError);
  EXPECT_THROW((void)parse_expression("not " + std::string(300, '-') + "1"), SyntaxError);
}

TEST(Expr, RuntimeErrorsAreClear) {
  try {
    (void)eval("a // b", {{"a", 1}, {"b", 0}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos);
  }
  EXPECT_THROW((void)eval("1 % 0"), Error);
  EXPECT_THROW((void)eval("1 / 0"), Error);
  EXPECT_THROW((void)eval("9223372036854775807 + 1"), Error);
  EXPECT_THROW((void)eval("2 ** 64"), Error);
  FakeTensors t;
  t.shapes["x"] = {4};
  EXPECT_THROW((void)eval("x.shape[1]", {}, &t), Error);
  EXPECT_THROW((void)eval("x[4]", {}, &t), Error);
  EXPECT_THROW((void)eval("x.item()", {}, &t), Error);
  EXPECT_THROW((void)eval("3.shape", {}, &t), Error);
}

TEST(Expr, CollectNames) {
  auto ast = parse_expression("a + b.shape[0] == a * c[-1].item()");
  EXPECT_EQ(collect_names(*ast), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace kh::expr
