// The normalised content hash: blind to layout, comments and source order; sensitive to
// code, knob #defines, paths and the entry point.
#include "control/normalised_hash.h"

#include <gtest/gtest.h>

#include "agents/knobs.h"

namespace kh::control {
namespace {

Solution solution(std::vector<SourceFile> sources) {
  Solution s;
  s.name = "s";
  s.definition = "d";
  s.spec.language = "cpp";
  s.spec.entry_point = "kernel.cpp::run";
  s.sources = std::move(sources);
  return s;
}

const char* kKernel = R"(// kh:param VEC in {1,2,4}
#ifndef VEC
#define VEC 4
#endif
#include "helper.h"
// sums rows
void run(const float* x, float* y, int n) {
  for (int i = 0; i < n; i += VEC) { y[i] = x[i] + 1.0f; }  // add one
}
)";

const char* kKernelRelaidOut = R"(/* a header comment
   over two lines */
// kh:param VEC in {1,2,4}
#ifndef   VEC
#  define VEC   4
#endif

#include "helper.h"
void run(const float *x,
         float *y, int n)
{
    for (int i=0; i<n; i+=VEC)
    {
        y[i] = x[i]+1.0f;   /* add one */
    }
}
)";

TEST(ContentHash, WhitespaceAndCommentsDoNotMatter) {
  EXPECT_EQ(normalise_source(kKernel), normalise_source(kKernelRelaidOut));
  EXPECT_EQ(normalised_content_hash(solution({{"kernel.cpp", kKernel, {}}})),
            normalised_content_hash(solution({{"kernel.cpp", kKernelRelaidOut, {}}})));
}

TEST(ContentHash, TheOrderOfSourcesDoesNotMatter) {
  const SourceFile k{"kernel.cpp", kKernel, {}};
  const SourceFile h{"helper.h", "inline int one() { return 1; }\n", {}};
  EXPECT_EQ(normalised_content_hash(solution({k, h})), normalised_content_hash(solution({h, k})));
}

TEST(ContentHash, CodeChangesDo) {
  std::string changed = kKernel;
  changed.replace(changed.find("+ 1.0f"), 6, "+ 2.0f");
  EXPECT_NE(normalised_content_hash(solution({{"kernel.cpp", kKernel, {}}})),
            normalised_content_hash(solution({{"kernel.cpp", changed, {}}})));
}

TEST(ContentHash, AKnobDefineChangesIt) {
  const Solution base = solution({{"kernel.cpp", kKernel, {}}});
  const Solution two = agents::with_knobs(base, {{"VEC", "2"}});
  const Solution four = agents::with_knobs(base, {{"VEC", "4"}});
  EXPECT_NE(normalised_content_hash(two), normalised_content_hash(four));
  EXPECT_NE(normalised_content_hash(two), normalised_content_hash(base));
}

TEST(ContentHash, StringLiteralsAreKeptByteForByte) {
  EXPECT_NE(normalise_source(R"(const char* s = "a  b";)"), normalise_source(R"(const char* s = "a b";)"));
  EXPECT_EQ(normalise_source("const char* s = \"// not a comment\";"), "const char*s=\"// not a comment\";");
  EXPECT_NE(normalise_source(R"(auto s = R"x(a  /* b */)x";)"), normalise_source(R"(auto s = R"x(a )x";)"));
}

TEST(ContentHash, SpacesThatSeparateTokensStay) {
  EXPECT_EQ(normalise_source("unsigned   int  x = a - -b;"), "unsigned int x=a- -b;");
  EXPECT_NE(normalise_source("x = a - -b;"), normalise_source("x = a --b;"));
  EXPECT_EQ(normalise_source("a+b"), normalise_source("a + b"));
}

TEST(ContentHash, PreprocessorLinesKeepTheirMeaning) {
  // A function-like macro and an object-like one differ by one space.
  EXPECT_NE(normalise_source("#define F(x) x\n"), normalise_source("#define F (x) x\n"));
  EXPECT_EQ(normalise_source("#define N 4\nint a[N];"),
            normalise_source("  #  define   N    4   // four\nint a [ N ] ;"));
  // A directive ends at its line; continued lines join.
  EXPECT_EQ(normalise_source("#define TWO \\\n  2\nint x;"), normalise_source("#define TWO 2\nint x;"));
}

TEST(ContentHash, TheEntryPointAndPathsCount) {
  Solution a = solution({{"kernel.cpp", kKernel, {}}});
  Solution b = a;
  b.spec.entry_point = "kernel.cpp::run2";
  EXPECT_NE(normalised_content_hash(a), normalised_content_hash(b));
  Solution c = solution({{"other.cpp", kKernel, {}}});
  EXPECT_NE(normalised_content_hash(a), normalised_content_hash(c));
  EXPECT_EQ(normalised_content_hash(a).size(), 64U);
}

}  // namespace
}  // namespace kh::control
