#include "base/ordered_json_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace kh {
namespace {

using Json = nlohmann::ordered_json;

// What nlohmann's own parser gives is the reference: same values, same member order.
void expect_as_nlohmann(const std::string& text) {
  const std::optional<Json> ours = parse_ordered_json(text);
  ASSERT_TRUE(ours.has_value()) << text;
  const Json theirs = Json::parse(text);
  EXPECT_EQ(*ours, theirs) << text;
  EXPECT_EQ(ours->dump(), theirs.dump()) << text;  // order too: == on ordered_json compares it
}

TEST(OrderedJsonParse, GivesWhatNlohmannGivesInTheSameOrder) {
  expect_as_nlohmann(R"({"kind":"time","z":1,"a":[1,2.5,-3,"x",null,true,false],"m":{"b":{},"a":[]}})");
  expect_as_nlohmann(R"([{"q":1},{"p":[[[]]]},18446744073709551615,-9223372036854775808,1e300])");
  expect_as_nlohmann(R"("just a string")");
  expect_as_nlohmann("42");
  expect_as_nlohmann(R"({"s":"\u00e9\ud83d\ude00\n\"x\""})");
}

TEST(OrderedJsonParse, ARepeatedKeyKeepsItsFirstPlaceAndItsLastValue) {
  expect_as_nlohmann(R"({"a":1,"b":2,"a":3})");
  // Past the size searched in place, the index takes over: still the same answer.
  std::string text = "{";
  for (int i = 0; i < 40; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += R"("k3":"again","k39":[1],"k0":{"x":1}})";
  expect_as_nlohmann(text);
  const Json parsed = *parse_ordered_json(text);
  EXPECT_EQ(parsed.size(), 40U);
  EXPECT_EQ(parsed.at("k3"), "again");
  EXPECT_EQ(parsed.begin().key(), "k0");
}

TEST(OrderedJsonParse, RefusesWhatIsNotOneJsonValue) {
  for (const char* bad : {"", "{", "{\"a\":}", "[1,]", "{\"a\":1} trailing", "nul", "{'a':1}", "[1 2]"})
    EXPECT_FALSE(parse_ordered_json(bad).has_value()) << bad;
}

TEST(OrderedJsonParse, DeepNestingNeitherRecursesNorFails) {
  const int depth = 200000;  // a recursive builder would overflow the stack here
  const std::string text = std::string(depth, '[') + std::string(depth, ']');
  const std::optional<Json> parsed = parse_ordered_json(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->is_array());
}

}  // namespace
}  // namespace kh
