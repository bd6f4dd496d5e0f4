// SignalTrap: while one lives, SIGINT, SIGTERM and SIGHUP are recorded instead of ending
// the process, so that a distributed run can first cancel what it submitted (scancel)
// and see it leave the queue. reraise() then restores the handlers that were there
// before (kharness's own, which stop child process groups) and raises the signal again,
// so the process ends as the signal says.
#pragma once

namespace kh::scale {

class SignalTrap {
 public:
  SignalTrap();
  SignalTrap(const SignalTrap&) = delete;  // one set of saved handlers, restored once
  SignalTrap& operator=(const SignalTrap&) = delete;
  ~SignalTrap();

  // The signal caught, or 0.
  [[nodiscard]] int caught() const noexcept;
  // Sleeps up to `seconds`, waking early when a signal arrives.
  void sleep_for(double seconds) const;
  // Restores the previous handlers and raises the caught signal (returns only if none was
  // caught, or the previous disposition ignores it).
  void reraise();

 private:
  bool restored_ = false;
  void restore() noexcept;
};

}  // namespace kh::scale
