// The knob grammar on the shipped baselines and on hand-made sources, the grid and the
// neighbours the tuner walks, and every declared value of every C++ baseline compiled
// for real (one knob moved at a time from the defaults).
#include "agents/knobs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "compile/build_cache.h"
#include "error/error.h"
#include "eval/operator_library.h"
#include "eval/solution_build.h"

namespace kh::agents {
namespace {

const OperatorLibrary& library() {
  static const OperatorLibrary ops =
      OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  return ops;
}

Solution one_file(const std::string& text) {
  Solution s;
  s.name = "probe";
  s.definition = "d";
  s.spec.language = "cpp";
  s.spec.entry_point = "k.cpp::run";
  s.sources.push_back({"k.cpp", text, {}});
  return s;
}

TEST(Knobs, EveryShippedBaselineDeclaresKnobsWithValidDefaults) {
  for (const OperatorEntry& op : library().entries()) {
    for (const char* backend : {"cpu", "cuda"}) {
      SCOPED_TRACE(op.definition.name + " " + backend);
      const Solution s = library().baseline(op.definition.name, backend);
      const std::vector<Knob> knobs = parse_knobs(s);
      ASSERT_FALSE(knobs.empty()) << "the tuner needs something to explore";
      for (const Knob& k : knobs) {
        EXPECT_GE(k.values.size(), 2u) << k.name;
        EXPECT_NE(std::find(k.values.begin(), k.values.end(), k.default_value), k.values.end()) << k.name;
      }
    }
  }
}

TEST(Knobs, ParsesDeclarationsDefaultsAndDescriptions) {
  const auto knobs = parse_knobs(one_file(
      "// kh:param BLOCK in {64, 128,256}  threads per block\n#ifndef BLOCK\n#define BLOCK 128\n#endif\n"
      "// kh:param FAST in {0,1}\n"));
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0].name, "BLOCK");
  EXPECT_EQ(knobs[0].values, (std::vector<std::string>{"64", "128", "256"}));
  EXPECT_EQ(knobs[0].default_value, "128");
  EXPECT_EQ(knobs[0].description, "threads per block");
  EXPECT_EQ(knobs[0].where, "k.cpp:1");
  EXPECT_EQ(knobs[1].default_value, "0") << "no #define: the first value";
}

TEST(Knobs, MalformedDeclarationsNameTheLine) {
  auto message = [](const std::string& text) {
    try {
      (void)parse_knobs(one_file(text));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("int x;\n// kh:param BLOCK {64}\n").find("k.cpp:2"), std::string::npos);
  EXPECT_NE(message("// kh:param B in {}\n").find("no values"), std::string::npos);
  EXPECT_NE(message("// kh:param B in {1,1}\n").find("twice"), std::string::npos);
  EXPECT_NE(message("// kh:param B in {1,2}\n// kh:param B in {3,4}\n").find("declared twice"),
            std::string::npos);
  EXPECT_NE(message("// kh:param B in {1,2}\n#define B 7\n").find("not among its values"), std::string::npos);
  EXPECT_NE(message("// kh:param B in {1;rm -rf}\n").find("not a number"), std::string::npos);
}

TEST(Knobs, SolutionJsonKnobs) {
  Solution s = one_file("#ifndef TILE\n#define TILE 32\n#endif\n");
  s.raw = {{"knobs", {{{"name", "TILE"}, {"values", {16, 32, 64}}}}}};
  const auto knobs = parse_knobs(s);
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_EQ(knobs[0].values, (std::vector<std::string>{"16", "32", "64"}));
  EXPECT_EQ(knobs[0].default_value, "32");
}

TEST(Knobs, SettingsBecomeDefinesInTheEntryFile) {
  const Solution s =
      one_file("// kh:param B in {1,2}\n#ifndef B\n#define B 1\n#endif\nint run() { return B; }\n");
  const Solution v = with_knobs(s, {{"B", "2"}});
  EXPECT_EQ(v.name, "probe+B=2");
  EXPECT_EQ(v.sources[0].content.rfind("#define B 2\n", 0), 0u);
  EXPECT_NE(v.sources[0].content, s.sources[0].content);
}

TEST(Knobs, GridStartsAtTheDefaultsAndNeighboursMoveOneKnobOneStep) {
  const std::vector<Knob> knobs{{"A", {"1", "2", "3"}, "2", "", ""}, {"B", {"x", "y"}, "x", "", ""}};
  const auto grid = knob_grid(knobs, 100);
  ASSERT_EQ(grid.size(), 6u);
  EXPECT_EQ(grid[0], (KnobSetting{{"A", "2"}, {"B", "x"}}));
  EXPECT_EQ(std::set<KnobSetting>(grid.begin(), grid.end()).size(), 6u) << "no setting twice";
  EXPECT_EQ(knob_grid(knobs, 3).size(), 3u);
  EXPECT_EQ(knob_grid(knobs, 100), grid) << "deterministic";
  const auto n = knob_neighbours(knobs, {{"A", "2"}, {"B", "x"}});
  EXPECT_EQ(n, (std::vector<KnobSetting>{
                   {{"A", "1"}, {"B", "x"}}, {{"A", "3"}, {"B", "x"}}, {{"A", "2"}, {"B", "y"}}}));
  EXPECT_EQ(knob_neighbours(knobs, {{"A", "1"}, {"B", "y"}}).size(), 2u) << "edges have one neighbour a knob";
}

// Every value a C++ baseline declares compiles: the tuner must never be handed a knob
// that cannot build.
TEST(Knobs, EveryCppBaselineValueCompiles) {
  const auto scratch = std::filesystem::temp_directory_path() / ("kh-knobs-" + std::to_string(::getpid()));
  const BuildCache cache(scratch);
  BuildSettings settings;
  settings.backend = "cpu";
  settings.include_dir = std::filesystem::path(KHARNESS_BINARY_DIR) / "include";
  for (const OperatorEntry& op : library().entries()) {
    const Solution base = library().baseline(op.definition.name, "cpu");
    const std::vector<Knob> knobs = parse_knobs(base);
    std::vector<Solution> variants;
    for (const KnobSetting& s : knob_neighbours(knobs, default_setting(knobs)))
      variants.push_back(with_knobs(base, s));
    for (std::size_t i = 0; i < knobs.size(); ++i) {
      // Values more than one step away from the default, too.
      for (const std::string& v : knobs[i].values) {
        KnobSetting s = default_setting(knobs);
        s[i].second = v;
        variants.push_back(with_knobs(base, s));
      }
    }
    const auto builds = build_solutions(cache, variants, op.definition, settings, 2);
    for (std::size_t i = 0; i < builds.size(); ++i) {
      EXPECT_EQ(builds[i].status, BuildResult::Status::ok) << variants[i].name << ": " << builds[i].log;
    }
  }
  std::filesystem::remove_all(scratch);
}

}  // namespace
}  // namespace kh::agents
