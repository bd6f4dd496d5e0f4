#include "control/stop_counter.h"

#include <signal.h>

#include <atomic>
#include <mutex>

namespace kh::control {
namespace {

std::atomic<std::uint64_t> g_stops{0};
std::atomic<bool> g_terminal_stop{false};  // the pending stop came from the terminal
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "used in a signal handler");

void on_continue(int) {
  if (!g_terminal_stop.exchange(false)) g_stops.fetch_add(1);
}

// A terminal's stop (Ctrl-Z) comes from the kernel; one sent by a process is SI_USER or
// SI_QUEUE. Either way the process then stops, as it would without the handler.
void on_terminal_stop(int, siginfo_t* info, void*) {
  g_terminal_stop = info == nullptr || info->si_code == SI_KERNEL;
  raise(SIGSTOP);
}

void install() {
  struct sigaction cont {};
  cont.sa_handler = on_continue;
  sigemptyset(&cont.sa_mask);
  cont.sa_flags = SA_RESTART;
  sigaction(SIGCONT, &cont, nullptr);
  struct sigaction tstp {};
  tstp.sa_sigaction = on_terminal_stop;
  sigemptyset(&tstp.sa_mask);
  tstp.sa_flags = SA_RESTART | SA_SIGINFO;
  sigaction(SIGTSTP, &tstp, nullptr);
}

}  // namespace

std::uint64_t times_stopped() {
  static std::once_flag installed;
  std::call_once(installed, install);
  return g_stops.load();
}

}  // namespace kh::control
