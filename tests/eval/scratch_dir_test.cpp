// Scratch folders of killed runs: a `kharness eval` killed with SIGKILL leaves its
// kharness-eval-* folder behind (it cannot remove it); the next evaluation removes it,
// and never a folder whose owner still runs.
#include "eval/scratch_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/temp_dir.h"

extern char** environ;

namespace kh {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> scratch_dirs(const fs::path& root) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(root))
    if (e.path().filename().string().starts_with("kharness-eval-")) out.push_back(e.path());
  return out;
}

// True once nothing holds the folder's lock. A killed run's children that were between
// fork and exec hold it too (they inherited the descriptor) until the kill reaches them,
// a few milliseconds after the run itself is reaped; until then the run is not all dead.
bool lock_released(const fs::path& dir, std::chrono::seconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    const int fd = ::open((dir / "owner.lock").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    if (free) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(ScratchDir, OnlyFoldersWhoseOwnerDiedAreRemoved) {
  test::TempDir root("scratch-");
  root.write("kharness-eval-dead01/owner.lock", "");
  root.write("kharness-eval-dead01/candidate/log", "left by a killed run");
  root.write("kharness-eval-nolock/x", "no lock file: not ours to judge");
  root.write("kharness-eval-alive1/owner.lock", "");
  // A live owner: another open file description holding the lock (as the owning
  // process does for as long as it runs).
  const int held = ::open((root / "kharness-eval-alive1/owner.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  EXPECT_EQ(remove_orphaned_scratch_dirs(root.path()), 1u);
  EXPECT_FALSE(fs::exists(root / "kharness-eval-dead01"));
  EXPECT_TRUE(fs::exists(root / "kharness-eval-nolock"));
  EXPECT_TRUE(fs::exists(root / "kharness-eval-alive1/owner.lock"));
  ::close(held);
}

TEST(ScratchDir, AKilledEvalsFolderIsRemovedByTheNextEval) {
  test::TempDir tmp("scratch-eval-");
  ASSERT_EQ(setenv("TMPDIR", tmp.path().c_str(), 1), 0);
  const std::string solution = std::string(KHARNESS_SOURCE_DIR) + "/examples/solutions/rmsnorm_h128_cpu.json";
  std::vector<std::string> args = {KHARNESS_EXECUTABLE, "eval", "--definition", "rmsnorm_h128",
                                   "--backend",         "cpu",  "--solution",   solution};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
  // The attack on the disk: kill it once its scratch folder exists.
  bool made = false;
  for (int i = 0; i < 600 && !made; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    made = !scratch_dirs(tmp.path()).empty();
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(made) << "the eval made no scratch folder";
  ASSERT_TRUE(WIFSIGNALED(status)) << "the eval finished before it was killed";
  const std::vector<fs::path> left = scratch_dirs(tmp.path());
  ASSERT_EQ(left.size(), 1u) << "the killed eval's folder is not there to clean";
  ASSERT_TRUE(lock_released(left[0], std::chrono::seconds(10)))
      << "the killed eval's processes still hold its lock";
  {
    const ScratchDir next({});  // the next evaluation starts
    EXPECT_FALSE(fs::exists(left[0])) << "the killed run's folder survived the next start";
    EXPECT_TRUE(fs::exists(next.path()));
  }
  EXPECT_TRUE(scratch_dirs(tmp.path()).empty());
  posix_spawn_file_actions_destroy(&fa);
  unsetenv("TMPDIR");
}

}  // namespace
}  // namespace kh
