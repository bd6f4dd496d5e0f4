// The tuner: explore spreads a grid over knob families, exploit takes neighbours, it
// never re-proposes a tried setting, and the same inputs give the same proposal.
#include "agents/tuner_agent.h"

#include <gtest/gtest.h>

#include <set>

#include "agents/knobs.h"
#include "agents/replay_agent.h"

namespace kh::agents {
namespace {

Solution knobbed() {
  Solution s;
  s.name = "k";
  s.definition = "d";
  s.spec.language = "cpp";
  s.spec.entry_point = "k.cpp::f";
  s.sources.push_back({"k.cpp",
                       "// kh:param A in {1,2,4}\n// kh:param B in {8,16}\n#ifndef A\n#define A 2\n#endif\n"
                       "#ifndef B\n#define B 8\n#endif\nvoid f() {}\n",
                       {}});
  return s;
}

ProposalContext context(const Solution& parent, std::string stage, std::size_t max) {
  ProposalContext c;
  c.definition.name = "d";
  c.parent = parent;
  c.stage = std::move(stage);
  c.max_candidates = max;
  c.seed = 3;
  return c;
}

TEST(TunerAgent, ExploreCoversThreeFamiliesAndSkipsTheParentsSetting) {
  TunerAgent t;
  const Proposal p = t.propose(context(knobbed(), "explore", 8));
  ASSERT_EQ(p.candidates.size(), 5u);  // 3 x 2 settings, less the parent's own
  std::set<std::string> families;
  for (const Candidate& c : p.candidates) {
    families.insert(c.family);
    EXPECT_NE(c.solution.name, "k+A=2,B=8");
  }
  EXPECT_EQ(families, (std::set<std::string>{"knobs:A", "knobs:B", "knobs:A+B"}));
}

TEST(TunerAgent, SameSeedSameProposal) {
  TunerAgent t;
  const Proposal a = t.propose(context(knobbed(), "explore", 3));
  const Proposal b = t.propose(context(knobbed(), "explore", 3));
  ASSERT_EQ(a.candidates.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(a.candidates[i].solution.name, b.candidates[i].solution.name);
}

TEST(TunerAgent, ExploitProposesUntriedNeighboursOfAVariant) {
  TunerAgent t;
  const Solution variant = with_knobs(knobbed(), {{"A", "1"}, {"B", "16"}});
  ProposalContext c = context(variant, "exploit", 3);
  c.history = {with_knobs(knobbed(), {{"A", "2"}, {"B", "16"}})};
  const Proposal p = t.propose(c);
  ASSERT_EQ(p.candidates.size(), 1u) << p.transcript;  // A=2 was tried; B=8 is left
  EXPECT_EQ(p.candidates[0].solution.name, "k+A=1,B=8");
  // Built from the base, not stacked on the variant's #defines.
  EXPECT_EQ(p.candidates[0].solution.sources[0].content.find("#define A 1\n#define B 8\n// kh:param"), 0u);
}

TEST(ReplayAgent, ProposesEachItemOnceAndRefusesAnotherDefinition) {
  Solution other = knobbed();
  other.definition = "elsewhere";
  Solution mine = with_knobs(knobbed(), {{"A", "4"}, {"B", "8"}});
  ReplayAgent r({{mine, "replay", "a.json"}, {other, "replay", "b.json"}});
  ProposalContext c = context(knobbed(), "explore", 8);
  Proposal p = r.propose(c);
  ASSERT_EQ(p.candidates.size(), 1u);
  ASSERT_EQ(p.rejected.size(), 1u);
  c.history = {mine};
  EXPECT_TRUE(r.propose(c).candidates.empty());
}

}  // namespace
}  // namespace kh::agents
