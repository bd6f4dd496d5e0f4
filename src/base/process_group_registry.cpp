#include "base/process_group_registry.h"

#include <signal.h>

#include <atomic>

namespace kh {

namespace {

static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler reads the slots");

// 0 is a free slot. Plain atomics: the handler may run on any thread, mid-update.
std::atomic<pid_t> g_groups[kTrackedGroups];

constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_termination(int sig) {
  kill_tracked_child_groups();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(sig, &default_action, nullptr);
  raise(sig);  // delivered as the handler returns: the process ends as the signal says
}

}  // namespace

void track_child_group(pid_t group) noexcept {
  for (std::atomic<pid_t>& slot : g_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }
}

void untrack_child_group(pid_t group) noexcept {
  for (std::atomic<pid_t>& slot : g_groups) {
    pid_t mine = group;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

void kill_tracked_child_groups() noexcept {
  for (const std::atomic<pid_t>& slot : g_groups) {
    const pid_t group = slot.load();
    if (group > 0) {
      kill(-group, SIGKILL);
      kill(group, SIGKILL);
    }
  }
}

void kill_child_groups_on_termination() {
  for (const int sig : kTerminationSignals) {
    struct sigaction current {};
    sigaction(sig, nullptr, &current);
    if (current.sa_handler == SIG_IGN) continue;  // nohup's SIGHUP stays ignored
    struct sigaction action {};
    action.sa_handler = on_termination;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

}  // namespace kh
