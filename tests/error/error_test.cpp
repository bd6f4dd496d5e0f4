#include "error/error.h"

#include <gtest/gtest.h>

namespace kh {

TEST(Error, MessageNamesFileLineAndField) {
  Error e(Location{"w.jsonl", 3, "workload.axes.M"}, "must be an integer");
  EXPECT_STREQ(e.what(), "w.jsonl:3: workload.axes.M: must be an integer");
  EXPECT_EQ(e.reason(), "must be an integer");
  EXPECT_EQ(e.where().line, 3u);
}

TEST(Error, EmptyPartsAreLeftOut) {
  EXPECT_STREQ(Error(Location{"d.json", 0, ""}, "bad").what(), "d.json: bad");
  EXPECT_STREQ(Error(Location{"", 0, "name"}, "bad").what(), "name: bad");
  EXPECT_STREQ(Error("bad").what(), "bad");
}

}  // namespace kh
