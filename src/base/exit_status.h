// ExitStatus: how a reaped process ended.
#pragma once

#include <string>

namespace kh {

class ExitStatus {
 public:
  [[nodiscard]] static ExitStatus exited(int code) { return ExitStatus(false, code, false); }
  [[nodiscard]] static ExitStatus signalled(int signal, bool core_dumped) {
    return ExitStatus(true, signal, core_dumped);
  }
  // From a waitpid() status word.
  [[nodiscard]] static ExitStatus from_wait_status(int status);

  [[nodiscard]] bool is_exited() const noexcept { return !signalled_; }
  [[nodiscard]] bool is_signalled() const noexcept { return signalled_; }
  [[nodiscard]] int code() const noexcept { return signalled_ ? -1 : value_; }
  [[nodiscard]] int signal() const noexcept { return signalled_ ? value_ : 0; }
  [[nodiscard]] bool core_dumped() const noexcept { return core_; }

  // "exited with code 3", "killed by signal 11 (Segmentation fault)",
  // "killed by signal 6 (Aborted), core dumped".
  [[nodiscard]] std::string describe() const;

  friend bool operator==(const ExitStatus&, const ExitStatus&) = default;

 private:
  ExitStatus(bool signalled, int value, bool core) : signalled_(signalled), value_(value), core_(core) {}
  bool signalled_;
  int value_;
  bool core_;
};

}  // namespace kh
