#include "base/exit_status.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

namespace kh {
namespace {

TEST(ExitStatus, DescribesExitsAndSignals) {
  EXPECT_EQ(ExitStatus::exited(3).describe(), "exited with code 3");
  EXPECT_EQ(ExitStatus::signalled(SIGSEGV, false).describe(), "killed by signal 11 (Segmentation fault)");
  EXPECT_EQ(ExitStatus::signalled(SIGABRT, true).describe(), "killed by signal 6 (Aborted), core dumped");
}

TEST(ExitStatus, DecodesWaitStatusWords) {
  EXPECT_EQ(ExitStatus::from_wait_status(3 << 8), ExitStatus::exited(3));
  EXPECT_EQ(ExitStatus::from_wait_status(SIGKILL), ExitStatus::signalled(SIGKILL, false));
  EXPECT_EQ(ExitStatus::from_wait_status(SIGSEGV | 0x80), ExitStatus::signalled(SIGSEGV, true));
}

}  // namespace
}  // namespace kh
