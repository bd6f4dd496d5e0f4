// Many processes writing one archive at once lose nothing: 8 writer processes, each
// recording 100 runs of 10 traces (1000 traces each), all racing to create the archive
// too. Every run they were told was committed is there, with all its rows.
#include <gtest/gtest.h>

#include <memory>

#include "archive/archive.h"
#include "archive/archive_check.h"
#include "archive_fixtures.h"
#include "writer_process.h"

namespace kh::archive {
namespace {

TEST(ConcurrentWriters, EightProcessesTimesAThousandTracesLoseNothing) {
  test::TempDir dir;
  const std::string archive = (dir / "archive").string();
  constexpr int kProcesses = 8, kRuns = 100, kTracesPerRun = 10;
  std::vector<std::unique_ptr<test::WriterProcess>> writers;
  for (int p = 0; p < kProcesses; ++p) {
    writers.push_back(
        std::make_unique<test::WriterProcess>(archive, "p" + std::to_string(p), kRuns, kTracesPerRun));
    ASSERT_TRUE(writers.back()->started());
  }
  std::set<long long> committed;
  for (auto& w : writers) {
    const int status = w->finish();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed";
    EXPECT_EQ(w->committed().size(), static_cast<std::size_t>(kRuns));
    committed.insert(w->committed().begin(), w->committed().end());
  }
  EXPECT_EQ(committed.size(), static_cast<std::size_t>(kProcesses * kRuns)) << "run ids are unique";

  Archive a = Archive::open_existing(archive);
  Database& db = a.db();
  EXPECT_EQ(db.query_int("SELECT count(*) FROM traces"), kProcesses * kRuns * kTracesPerRun);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM runs"), kProcesses * kRuns);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM samples"), kProcesses * kRuns * kTracesPerRun * 4);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM solutions WHERE role = 'candidate'"), kProcesses * kRuns);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM definitions"), 1) << "one definition, written by all";
  EXPECT_EQ(db.query_int("SELECT count(*) FROM workloads"), kTracesPerRun);
  EXPECT_EQ(db.query_int("SELECT count(DISTINCT solution) FROM traces"), kProcesses * kRuns);
  for (long long id : committed) {
    Statement s = db.prepare("SELECT count(*) FROM traces WHERE run_id = ?");
    s.bind(1, static_cast<std::int64_t>(id));
    ASSERT_TRUE(s.step());
    ASSERT_EQ(s.column_int(0), kTracesPerRun) << "run " << id;
  }
  const CheckReport check = check_archive(a, true);
  EXPECT_TRUE(check.ok()) << (check.problems.empty() ? check.integrity : check.problems.front());
  EXPECT_EQ(check.stray_temp_files, 0);
}

}  // namespace
}  // namespace kh::archive
