// kill -9 at any moment during heavy writes: the archive still opens, passes
// PRAGMA integrity_check and our completeness checks, and every run the writer was
// told was committed is there whole. Five kills at random moments, on one archive
// (the first may land while the archive is being created).
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>

#include "archive/archive.h"
#include "archive/archive_check.h"
#include "archive_fixtures.h"
#include "writer_process.h"

namespace kh::archive {
namespace {

TEST(KillDuringWrites, TheArchiveStaysWholeAndCommittedRunsSurvive) {
  test::TempDir dir;
  const std::string archive = (dir / "archive").string();
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(30, 1500);
  std::set<long long> committed;
  for (int round = 0; round < 5; ++round) {
    test::WriterProcess writer(archive, "k" + std::to_string(round), 0, 50);
    ASSERT_TRUE(writer.started());
    const int delay = delay_ms(random);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    writer.kill_now();
    const int status = writer.finish();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "round " << round << ": the writer ended early";
    committed.insert(writer.committed().begin(), writer.committed().end());

    Archive a = Archive::open_or_create(archive);
    const CheckReport check = check_archive(a, true);
    EXPECT_EQ(check.integrity, "ok") << "round " << round << " after " << delay << " ms";
    EXPECT_EQ(check.foreign_key_violations, 0);
    EXPECT_TRUE(check.problems.empty()) << check.problems.front();
    for (long long id : committed) {
      Statement s = a.db().prepare(
          "SELECT trace_count, (SELECT count(*) FROM traces WHERE run_id = r.id) FROM runs r "
          "WHERE id = ?");
      s.bind(1, static_cast<std::int64_t>(id));
      ASSERT_TRUE(s.step()) << "committed run " << id << " is gone";
      EXPECT_EQ(s.column_int(0), 50);
      EXPECT_EQ(s.column_int(1), 50);
    }
  }
  Archive a = Archive::open_existing(archive);
  EXPECT_GT(a.db().query_int("SELECT count(*) FROM runs"), 0)
      << "no kill came after a commit; nothing was tested";
  EXPECT_EQ(a.db().query_int("SELECT count(*) FROM traces"),
            50 * a.db().query_int("SELECT count(*) FROM runs"));
}

}  // namespace
}  // namespace kh::archive
