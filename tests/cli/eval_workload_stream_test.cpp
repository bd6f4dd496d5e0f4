// `kharness eval` workload selection by uuid prefix, and -o traces written as each
// workload finishes, so an interrupted run keeps what it completed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kharness_command.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kh::cli_test::run;
using kh::cli_test::Stderr;

const fs::path kOperators = fs::path(KHARNESS_SOURCE_DIR) / "operators";
const std::string kDefinition = "rmsnorm_h128";

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> workload_uuids() {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(kOperators / kDefinition / "workloads.jsonl")) {
    out.push_back(nlohmann::json::parse(line)["workload"]["uuid"]);
  }
  return out;
}

std::string eval_command(const std::string& extra) {
  return "eval --definition " + kDefinition + " --baseline --backend cpu --operators " + quoted(kOperators) +
         " --trials 1 --timing-trials 1 --no-reference-timing " + extra;
}

TEST(CliEvalWorkloads, UniquePrefixSelectsTheWorkload) {
  const std::vector<std::string> uuids = workload_uuids();
  ASSERT_GE(uuids.size(), 2u);
  const auto r = run(eval_command("--warmup 0 --iterations 1 --json --workload " + uuids[1].substr(0, 8)),
                     Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["traces"].size(), 1u);
  EXPECT_EQ(j["traces"][0]["workload"]["uuid"], uuids[1]);
}

TEST(CliEvalWorkloads, AmbiguousOrUnknownPrefixIsRefusedByName) {
  const auto unknown = run(eval_command("--workload zzzz"));
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.out.find("no workload 'zzzz'"), std::string::npos) << unknown.out;
  // Every uuid is hex, so among 5+ of them two share a first character, or one of the
  // 16 single characters is a prefix of at least two (pigeonhole needs 17; take the
  // first character that repeats, and skip if none does).
  const std::vector<std::string> uuids = workload_uuids();
  std::string shared;
  for (std::size_t i = 0; i < uuids.size() && shared.empty(); ++i) {
    for (std::size_t k = i + 1; k < uuids.size(); ++k) {
      if (uuids[i][0] == uuids[k][0]) shared = uuids[i].substr(0, 1);
    }
  }
  if (shared.empty()) GTEST_SKIP() << "no two workloads share a first character";
  const auto ambiguous = run(eval_command("--workload " + shared));
  EXPECT_NE(ambiguous.status, 0);
  EXPECT_NE(ambiguous.out.find("more than one workload"), std::string::npos) << ambiguous.out;
}

// The run is killed (-9) as soon as its first trace is on disk. Written only at the end,
// the file would be empty; written per workload, it holds complete, parseable lines.
TEST(CliEvalWorkloads, OutputKeepsFinishedWorkloadsWhenKilled) {
  const kh::test::TempDir dir;
  const fs::path out = dir.path() / "traces.jsonl";
  const std::string eval = std::string("'") + KHARNESS_BINARY + "' " +
                           eval_command("--warmup 0 --iterations 1000 -o " + quoted(out));
  const fs::path script = dir.path() / "kill_after_first_trace.sh";
  std::ofstream(script) << eval << " >/dev/null 2>&1 &\npid=$!\nfor i in $(seq 1200); do [ -s " << quoted(out)
                        << " ] && break; sleep 0.05; done\nkill -9 $pid && echo killed\nwait $pid\n";
  FILE* pipe = popen(("bash " + quoted(script)).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string said;
  for (char buf[256]; fgets(buf, sizeof buf, pipe) != nullptr;) said += buf;
  pclose(pipe);
  const std::vector<std::string> lines = lines_of(out);
  ASSERT_FALSE(lines.empty()) << "nothing written before the kill";
  if (said.find("killed") == std::string::npos) GTEST_SKIP() << "the run finished before it could be killed";
  EXPECT_LT(lines.size(), workload_uuids().size()) << "the kill came after the last workload";
  for (const std::string& line : lines) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["definition"], kDefinition);
    EXPECT_TRUE(j["evaluation"].contains("status"));
  }
}

}  // namespace
