// descendant_processes: children and grandchildren are found, the caller is not, and the
// walk stops at its limit; child_processes: the children alone.
#include "base/process_tree.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "support/paused_child.h"

namespace kh {
namespace {

bool contains(const std::vector<pid_t>& pids, pid_t pid) {
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

// A child that starts `grandchildren` children of its own, then waits to be killed. The
// pipe tells the parent the grandchildren's pids are there.
struct Family {
  pid_t child = -1;
  std::vector<pid_t> grandchildren;

  explicit Family(int count) {
    int ready[2];
    EXPECT_EQ(::pipe(ready), 0);
    child = ::fork();
    if (child == 0) {
      for (int i = 0; i < count; ++i) {
        const pid_t g = ::fork();
        if (g == 0) {
          ::pause();
          ::_exit(0);
        }
        if (::write(ready[1], &g, sizeof g) != sizeof g) ::_exit(1);
      }
      ::pause();
      ::_exit(0);
    }
    ::close(ready[1]);
    for (pid_t g = 0;
         static_cast<int>(grandchildren.size()) < count && ::read(ready[0], &g, sizeof g) == sizeof g;)
      grandchildren.push_back(g);
    ::close(ready[0]);
  }
  ~Family() {
    for (const pid_t g : grandchildren) ::kill(g, SIGKILL);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
};

TEST(ProcessTree, FindsChildrenAndGrandchildrenButNotTheRoot) {
  if (!test::proc_lists_children()) GTEST_SKIP() << "this kernel has no /proc/<pid>/task/<tid>/children";
  const Family family(2);
  ASSERT_EQ(family.grandchildren.size(), 2u);
  const std::vector<pid_t> below = descendant_processes(::getpid());
  EXPECT_TRUE(contains(below, family.child));
  for (const pid_t g : family.grandchildren) EXPECT_TRUE(contains(below, g)) << g;
  EXPECT_FALSE(contains(below, ::getpid()));
  const std::vector<pid_t> below_child = descendant_processes(family.child);
  EXPECT_EQ(below_child.size(), 2u);
  EXPECT_FALSE(contains(below_child, family.child));
  const std::vector<pid_t> children = child_processes(::getpid());
  EXPECT_TRUE(contains(children, family.child));
  for (const pid_t g : family.grandchildren) EXPECT_FALSE(contains(children, g)) << g;
}

TEST(ProcessTree, StopsAtItsLimit) {
  if (!test::proc_lists_children()) GTEST_SKIP() << "this kernel has no /proc/<pid>/task/<tid>/children";
  const Family family(5);
  ASSERT_EQ(family.grandchildren.size(), 5u);
  EXPECT_EQ(descendant_processes(::getpid(), 3).size(), 3u);
  EXPECT_GE(descendant_processes(::getpid()).size(), 6u);
}

TEST(ProcessTree, AProcessThatIsGoneHasNone) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(descendant_processes(child).empty());
}

}  // namespace
}  // namespace kh
