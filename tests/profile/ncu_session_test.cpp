// One ncu session for every regime: the launches of each workload are told apart by the
// workload range the worker opens inside the call range (eval/worker_side/profiler_ranges.h), and a
// regime that session missed is profiled alone. ncu itself is a script here that writes
// the raw page ncu would, for the workloads it is given.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "eval/worker_side/profiler_ranges.h"
#include "profile/ncu_driver.h"
#include "profile/profile_session.h"
#include "support/temp_dir.h"

namespace kh::profile {
namespace {

KernelMetrics launch(const std::string& kernel, const std::string& stack) {
  KernelMetrics k;
  k.kernel = kernel;
  k.nvtx_stack = stack;
  return k;
}

TEST(NcuWorkloads, LaunchesAreMappedByTheirWorkloadRange) {
  const std::string call = "<default domain>:" + call_range_name(true, 2) + ":none:none ";
  const std::vector<KernelMetrics> all = {
      launch("a1", "77  " + call + "<default domain>:" + workload_range_name("abc") + ":none:none"),
      launch("b1", "77  " + call + "<default domain>:" + workload_range_name("abcd") + ":none:none"),
      launch("a2", "77  " + call + "<default domain>:" + workload_range_name("abc") + ":none:none"),
      launch("none", "77  " + call)};
  const auto a = kernels_of_workload(all, "abc");
  ASSERT_EQ(a.size(), 2u) << "a uuid that prefixes another's must not take its launches";
  EXPECT_EQ(a[0].kernel, "a1");
  EXPECT_EQ(a[1].kernel, "a2");
  const auto b = kernels_of_workload(all, "abcd");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].kernel, "b1");
  EXPECT_TRUE(kernels_of_workload(all, "zzz").empty());
}

TEST(NcuDriver, OneSessionEvaluatesEveryWorkloadAndSelectsTheSecondCall) {
  NcuRequest r;
  r.kharness = "/opt/kharness";
  r.definition = "rmsnorm_h4096";
  r.solution = "s.json";
  r.workloads = {"u1", "u2", "u3"};
  r.work_dir = "/tmp/w";
  const std::vector<std::string> argv = ncu_command("/usr/bin/ncu", r);
  std::vector<std::string> workloads;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--workload") workloads.push_back(argv[i + 1]);
  }
  EXPECT_EQ(workloads, r.workloads);
  const auto include = std::find(argv.begin(), argv.end(), "--nvtx-include");
  ASSERT_NE(include, argv.end());
  EXPECT_EQ(*(include + 1), "kh_candidate_2/");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--clock-control"), argv.end());
  // Two correctness calls per workload and no timing: only the second call is profiled.
  const auto trials = std::find(argv.begin(), argv.end(), "--trials");
  ASSERT_NE(trials, argv.end());
  EXPECT_EQ(*(trials + 1), "2");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--no-timing"), argv.end());
  // The workers it profiles keep the user's rights (the GPU's counters) and reach ncu.
  const auto sandbox = std::find(argv.begin(), argv.end(), "--sandbox");
  ASSERT_NE(sandbox, argv.end());
  EXPECT_EQ(*(sandbox + 1), "profiled");
}

// ncu runs in the work folder: a relative --solution, --trace-set or --out of the user's would
// name files there, so every path in its command is absolute (a profile of
// `--solution .devpack/x.json` once had its eval under ncu fail with "File does not exist").
TEST(NcuDriver, PathsInTheCommandAreAbsolute) {
  NcuRequest r;
  r.kharness = "build/kharness";
  r.definition = "rmsnorm_h4096";
  r.solution = "solutions/s.json";
  r.trace_set = "traces";
  r.workloads = {"u1"};
  r.work_dir = "out/ncu";
  const std::vector<std::string> argv = ncu_command("/usr/bin/ncu", r);
  const auto after = [&argv](const std::string& flag) {
    const auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? std::string() : *(it + 1);
  };
  const std::filesystem::path here = std::filesystem::current_path();
  EXPECT_EQ(after("--solution"), (here / "solutions/s.json").string());
  EXPECT_EQ(after("--trace-set"), (here / "traces").string());
  EXPECT_EQ(after("--log-file"), (here / "out/ncu/ncu.csv").string());
  EXPECT_NE(std::find(argv.begin(), argv.end(), (here / "build/kharness").string()), argv.end());
  r.trace_set.clear();  // kharness's own operators: no --trace-set at all
  const std::vector<std::string> own = ncu_command("/usr/bin/ncu", r);
  EXPECT_EQ(std::find(own.begin(), own.end(), "--trace-set"), own.end());
}

// A stand-in for ncu: writes one launch per workload it is asked for, inside that
// workload's range, except that a session of several workloads "misses" the last one.
std::filesystem::path fake_ncu(const std::filesystem::path& dir) {
  auto path = dir / "ncu";
  std::ofstream(path) << R"(#!/bin/sh
log=""; workloads=""; prev=""
for a in "$@"; do
  [ "$prev" = "--log-file" ] && log="$a"
  [ "$prev" = "--workload" ] && workloads="$workloads $a"
  prev="$a"
done
echo "$workloads" >> ")"
                      << (dir / "sessions.txt").string() << R"("
n=$(echo $workloads | wc -w)
{
  echo '"ID","Process ID","thread Domain:Push/Pop_Range:PL_Type:PL_Value","Kernel Name","gpu__time_duration.sum"'
  echo '"","","","","usecond"'
  i=0
  for w in $workloads; do
    i=$((i + 1))
    [ "$n" -gt 1 ] && [ "$i" -eq "$n" ] && break
    echo "\"$i\",\"77\",\"77  <default domain>:kh_candidate_2:none:none <default domain>:kh_workload_$w:none:none\",\"k_$w\",\"$i\""
  done
} > "$log"
)";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

ProfileRequest request_in(const std::filesystem::path& dir) {
  ProfileRequest request;
  request.target.definition.name = "rmsnorm_h4096";
  request.kharness = "/opt/kharness";
  request.solution_file = dir / "solution.json";
  request.out_dir = dir / "out";
  return request;
}

ProfileReport report_with(const std::vector<std::string>& uuids) {
  ProfileReport report;
  report.definition = "rmsnorm_h4096";
  for (const std::string& u : uuids) {
    RegimeProfile rp;
    rp.result.workload.uuid = u;
    report.regimes.push_back(rp);
  }
  return report;
}

TEST(NcuSession, OneSessionServesEveryRegimeAndAMissedOneIsProfiledAlone) {
  test::TempDir dir;
  ASSERT_EQ(setenv("KHARNESS_NCU", fake_ncu(dir.path()).c_str(), 1), 0);
  ProfileRequest request = request_in(dir.path());
  std::vector<std::string> steps;
  request.on_step = [&steps](const std::string& line) { steps.push_back(line); };
  ProfileReport report = report_with({"w-small", "w-medium", "w-large"});
  report.regimes[2].regime.name = "large";
  attach_ncu_metrics(request, report);
  unsetenv("KHARNESS_NCU");
  // Said as it happens: the joint session, what it gave, the regime redone alone.
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].rfind("ncu: one session over 3 representative(s), at most ", 0), 0u) << steps[0];
  EXPECT_EQ(steps[1].rfind("ncu: 2 launch(es) profiled in ", 0), 0u) << steps[1];
  EXPECT_EQ(steps[2], "ncu: regime large had no launch in that session; profiling it alone");

  ASSERT_EQ(report.regimes.size(), 3u);
  for (const RegimeProfile& rp : report.regimes) {
    ASSERT_EQ(rp.evidence.kernels.size(), 1u) << rp.result.workload.uuid << ": " << rp.ncu_note;
    EXPECT_EQ(rp.evidence.kernels[0].kernel, "k_" + rp.result.workload.uuid);
    EXPECT_TRUE(rp.ncu_note.empty()) << rp.ncu_note;
  }
  ASSERT_EQ(report.ncu_runs.size(), 2u) << "one joint session, then one for the regime it missed";
  EXPECT_EQ(report.ncu_runs[0].launches, 2u);
  EXPECT_EQ(report.ncu_runs[1].workloads, std::vector<std::string>{"w-large"});
  EXPECT_TRUE(std::filesystem::exists(report.ncu_runs[1].dir / "ncu.csv"));
  std::ifstream sessions(dir.path() / "sessions.txt");
  std::string first, second;
  std::getline(sessions, first);
  std::getline(sessions, second);
  EXPECT_EQ(first, " w-small w-medium w-large");
  EXPECT_EQ(second, " w-large");
}

TEST(NcuSession, ASessionWithNoLaunchAtAllIsNotRetriedPerRegime) {
  test::TempDir dir;
  const auto ncu = dir.path() / "ncu";
  std::ofstream(ncu) << "#!/bin/sh\necho ncu failed >&2\nexit 3\n";
  std::filesystem::permissions(ncu, std::filesystem::perms::owner_all);
  ASSERT_EQ(setenv("KHARNESS_NCU", ncu.c_str(), 1), 0);
  const ProfileRequest request = request_in(dir.path());
  ProfileReport report = report_with({"a", "b"});
  attach_ncu_metrics(request, report);
  unsetenv("KHARNESS_NCU");
  ASSERT_EQ(report.ncu_runs.size(), 1u);
  EXPECT_EQ(report.ncu_runs[0].launches, 0u);
  EXPECT_NE(report.ncu_runs[0].note.find("ncu wrote no CSV"), std::string::npos);
  for (const RegimeProfile& rp : report.regimes) {
    EXPECT_TRUE(rp.evidence.kernels.empty());
    EXPECT_NE(rp.ncu_note.find("ncu wrote no CSV (exit 3"), std::string::npos) << rp.ncu_note;
  }
}

// When the eval under ncu fails, ncu writes its own error where the CSV should be: the note quotes
// it and names the log with the eval's own words, not only the CSV's missing header.
TEST(NcuSession, AFailedApplicationIsSaidWithNcusOwnError) {
  test::TempDir dir;
  const auto ncu = dir.path() / "ncu";
  std::ofstream(ncu) << R"(#!/bin/sh
prev=""
for a in "$@"; do
  [ "$prev" = "--log-file" ] && log="$a"
  prev="$a"
done
echo "==ERROR== The application returned an error code (2)." > "$log"
echo "--solution: File does not exist: s.json"
exit 2
)";
  std::filesystem::permissions(ncu, std::filesystem::perms::owner_all);
  ASSERT_EQ(setenv("KHARNESS_NCU", ncu.c_str(), 1), 0);
  const ProfileRequest request = request_in(dir.path());
  ProfileReport report = report_with({"a"});
  attach_ncu_metrics(request, report);
  unsetenv("KHARNESS_NCU");
  ASSERT_EQ(report.regimes.size(), 1u);
  const std::string& note = report.regimes[0].ncu_note;
  EXPECT_NE(note.find("ncu failed (exit 2): ==ERROR== The application returned an error code (2)."),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("ncu.log"), std::string::npos) << note;
}

}  // namespace
}  // namespace kh::profile
