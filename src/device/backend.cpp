// The host-memory defaults of Backend's input-generation hooks (the CPU backend's), and
// the choice of a timer.
#include "device/backend.h"

#include <span>

#include "error/error.h"
#include "timing/iteration_timer.h"
#include "tensor/dtype.h"
#include "tensor/random_fill.h"

namespace kh {

void Backend::fill_random_on_host(const std::vector<RandomFill>& fills) {
  for (const RandomFill& f : fills) {
    const std::size_t bytes = dtype_storage_bytes(f.dtype, f.numel);
    fill_bytes(std::span(static_cast<std::byte*>(f.data), bytes), f.dtype, f.numel, f.rule);
  }
}

const void* Backend::resident(std::string_view /*name*/, const void* bytes, std::size_t /*size*/) {
  return bytes;
}

std::unique_ptr<IterationTimer> Backend::make_best_timer(std::string& refused) {
  for (TimerKind kind : timers()) {
    try {
      return make_timer(kind);
    } catch (const Error& e) {
      refused += std::string(refused.empty() ? "" : "; ") + e.what();
    }
  }
  return nullptr;
}

}  // namespace kh
