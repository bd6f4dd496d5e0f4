#include "base/output_capture.h"

#include <fmt/format.h>

#include <algorithm>

namespace kh {

void OutputCapture::append(std::string_view data) {
  if (!keep_tail_) {
    const std::size_t room = limit_ - std::min(limit_, head_.size());
    head_.append(data.substr(0, room));
    dropped_ += data.size() - std::min(room, data.size());
    return;
  }
  const std::size_t half = limit_ / 2;
  const std::size_t to_head = std::min(data.size(), half - std::min(half, head_.size()));
  head_.append(data.substr(0, to_head));
  tail_.append(data.substr(to_head));
  if (tail_.size() > 2 * half + 4096) {
    const std::size_t cut = tail_.size() - half;
    dropped_ += cut;
    tail_.erase(0, cut);
  }
}

std::string OutputCapture::text() const {
  if (!keep_tail_) return dropped_ == 0 ? head_ : head_ + "\n[kharness: output truncated]\n";
  const std::size_t half = limit_ / 2;
  std::string tail = tail_;
  std::size_t dropped = dropped_;
  if (tail.size() > half) {
    dropped += tail.size() - half;
    tail.erase(0, tail.size() - half);
  }
  if (dropped == 0) return head_ + tail;
  return head_ + fmt::format("\n[... {} bytes left out ...]\n", dropped) + tail;
}

}  // namespace kh
