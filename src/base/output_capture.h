// OutputCapture: a child's output kept within a bound, so that a runaway compiler or a
// chatty agent cannot fill memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kh {

class OutputCapture {
 public:
  // keep_tail false: the first `limit` bytes and a note (a compiler's first errors are
  // the useful ones). keep_tail true: the first and the last `limit / 2` bytes and a
  // count of what was left out between them (an agent's start and its final words).
  OutputCapture(std::size_t limit, bool keep_tail) : limit_(limit), keep_tail_(keep_tail) {}
  void append(std::string_view data);
  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::size_t dropped() const { return dropped_; }

 private:
  std::size_t limit_;
  bool keep_tail_;
  std::string head_;
  std::string tail_;
  std::size_t dropped_ = 0;
};

}  // namespace kh
