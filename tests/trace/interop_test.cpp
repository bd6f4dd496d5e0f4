// Valid FlashInfer-Trace data that kharness used to refuse: NaN and infinities in traces
// (as flashinfer-bench writes them, "NaN" strings, and as bare tokens), a var axis written
// as {} with no type, and axis values of 0 (flashinfer-bench allows any value >= 0).
#include <gtest/gtest.h>

#include <cmath>

#include "trace/json_io.h"
#include "trace/json_text.h"
#include "trace/non_finite.h"
#include "trace/validate.h"

namespace kh {
namespace {

const char* kPagedDefinition = R"({"name": "tiny_paged", "op_type": "gqa_paged",
  "axes": {"num_pages": {}, "page_size": {"value": 16}, "head_dim": {"type": "const", "value": 4},
           "len_indptr": {"type": "var", "description": "batch + 1"}},
  "inputs": {"k_cache": {"shape": ["num_pages", "page_size", "head_dim"], "dtype": "bfloat16"},
             "kv_indptr": {"shape": ["len_indptr"], "dtype": "int32"}},
  "outputs": {"out": {"shape": ["head_dim"], "dtype": "float32"}},
  "reference": "def run(k_cache, kv_indptr):\n    return k_cache.sum(dim=(0, 1))\n"})";

std::string trace_with(const std::string& correctness) {
  return R"({"definition":"tiny_paged","solution":"s","workload":{"uuid":"w0","axes":{"num_pages":0,"len_indptr":1},)"
         R"("inputs":{"k_cache":{"type":"random"},"kv_indptr":{"type":"random"}}},"evaluation":{"status":)"
         R"("INCORRECT_NUMERICAL","environment":{"hardware":"H200"},"timestamp":"t","correctness":)" +
         correctness + "}}";
}

TEST(Interop, TypelessAxesReadAsUpstreamReadsThem) {
  const Definition d = parse_definition(kPagedDefinition);
  EXPECT_FALSE(d.axes.find("num_pages")->is_const()) << "{} is a var axis";
  ASSERT_TRUE(d.axes.find("page_size")->is_const()) << "a value without a type is const";
  EXPECT_EQ(d.axes.find("page_size")->const_value(), 16);
  EXPECT_EQ(count_errors(validate_definition(d)), 0u);
  // Written back as read: no type is added.
  const ordered_json out = parse_json_text(write_definition(d), Location{});
  EXPECT_EQ(out["axes"]["num_pages"], ordered_json::object());
  EXPECT_EQ(out["axes"]["page_size"], (ordered_json{{"value", 16}}));
  EXPECT_EQ(out["axes"]["len_indptr"]["type"], "var");
}

TEST(Interop, AxisValueOfZeroIsValid) {
  const Definition d = parse_definition(kPagedDefinition);
  const Trace w = parse_trace_line(
      R"({"definition":"tiny_paged","solution":null,"workload":{"uuid":"w0","axes":{"num_pages":0,"len_indptr":1},)"
      R"("inputs":{"k_cache":{"type":"random"},"kv_indptr":{"type":"random"}}},"evaluation":null})");
  EXPECT_EQ(w.workload.axes.find("num_pages") == nullptr ? -1 : *w.workload.axes.find("num_pages"), 0);
  const auto ds = validate_trace(w, &d);
  EXPECT_EQ(count_errors(ds), 0u) << (ds.empty() ? "" : format_diagnostic(ds.front()));
}

TEST(Interop, NonFiniteErrorsAsUpstreamWritesThem) {
  const Trace t =
      parse_trace_line(trace_with(R"({"max_relative_error":"NaN","max_absolute_error":"Infinity"})"));
  ASSERT_TRUE(t.evaluation && t.evaluation->correctness);
  EXPECT_TRUE(std::isnan(t.evaluation->correctness->max_relative_error));
  EXPECT_EQ(t.evaluation->correctness->max_absolute_error, INFINITY);
  // Written back the same way, and read back to the same values.
  const std::string line = write_trace_line(t);
  EXPECT_NE(line.find(R"("max_relative_error":"NaN","max_absolute_error":"Infinity")"), std::string::npos)
      << line;
  const Trace again = parse_trace_line(line);
  EXPECT_TRUE(std::isnan(again.evaluation->correctness->max_relative_error));
  EXPECT_EQ(again.evaluation->correctness->max_absolute_error, INFINITY);
}

TEST(Interop, NonFiniteErrorsAsBareTokens) {
  const Trace t =
      parse_trace_line(trace_with(R"({"max_relative_error":NaN,"max_absolute_error":-Infinity})"));
  ASSERT_TRUE(t.evaluation && t.evaluation->correctness);
  EXPECT_TRUE(std::isnan(t.evaluation->correctness->max_relative_error));
  EXPECT_EQ(t.evaluation->correctness->max_absolute_error, -INFINITY);
  EXPECT_EQ(count_errors(validate_trace(t, nullptr)), 0u);
  // A string that merely contains the token is left alone.
  const Trace logged = parse_trace_line(
      R"({"definition":"d","solution":"s","workload":{"uuid":"w","axes":{},"inputs":{}},"evaluation":)"
      R"({"status":"INCORRECT_NUMERICAL","log":"got NaN, Infinity","correctness":)"
      R"({"max_relative_error":NaN,"max_absolute_error":1}}})");
  EXPECT_EQ(logged.evaluation->log, "got NaN, Infinity");
}

TEST(Interop, ANumberMustStillBeANumber) {
  EXPECT_THROW((void)parse_trace_line(trace_with(R"({"max_relative_error":"big","max_absolute_error":1})")),
               Error);
  EXPECT_THROW((void)parse_trace_line(trace_with(R"({"max_relative_error":NaNa,"max_absolute_error":1})")),
               Error);
}

TEST(Interop, NonFiniteText) {
  EXPECT_TRUE(std::isnan(*non_finite_from_text("nan")));
  EXPECT_EQ(*non_finite_from_text("-Infinity"), -INFINITY);
  EXPECT_EQ(*non_finite_from_text("+inf"), INFINITY);
  EXPECT_FALSE(non_finite_from_text("1.5"));
  EXPECT_FALSE(non_finite_from_text(""));
  EXPECT_EQ(number_json(2.5), ordered_json(2.5));
  EXPECT_EQ(number_json(-INFINITY), "-Infinity");
  EXPECT_EQ(quote_non_finite_tokens(R"({"a":NaN,"b":[Infinity,-Infinity],"c":"NaN \"Infinity\""})"),
            R"({"a":"NaN","b":["Infinity","-Infinity"],"c":"NaN \"Infinity\""})");
}

TEST(Interop, NonFiniteScalarInput) {
  const Trace w = parse_trace_line(
      R"({"definition":"d","solution":null,"workload":{"uuid":"w","axes":{},"inputs":{"eps":{"type":"scalar","value":"-Infinity"}}},"evaluation":null})");
  const auto& s = std::get<ScalarInput>(w.workload.inputs.find("eps")->source);
  EXPECT_EQ(s.value.get<double>(), -INFINITY);
  EXPECT_NE(write_trace_line(w).find(R"("value":"-Infinity")"), std::string::npos);
}

}  // namespace
}  // namespace kh
