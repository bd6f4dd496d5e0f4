#include "scale/signal_trap.h"

#include <signal.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>

namespace kh::scale {

namespace {

constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_caught{0};
std::array<struct sigaction, kSignals.size()> g_previous{};

extern "C" void on_signal(int sig) { g_caught.store(sig); }

}  // namespace

SignalTrap::SignalTrap() {
  g_caught.store(0);
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    sigaction(kSignals[i], nullptr, &g_previous[i]);
    if (g_previous[i].sa_handler == SIG_IGN) continue;  // nohup's SIGHUP stays ignored
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(kSignals[i], &action, nullptr);
  }
}

SignalTrap::~SignalTrap() { restore(); }

void SignalTrap::restore() noexcept {
  if (restored_) return;
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
  restored_ = true;
}

int SignalTrap::caught() const noexcept { return g_caught.load(); }

void SignalTrap::sleep_for(double seconds) const {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (caught() == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

void SignalTrap::reraise() {
  const int sig = caught();
  restore();
  if (sig != 0) raise(sig);
}

}  // namespace kh::scale
