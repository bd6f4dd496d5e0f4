// The host-memory defaults of Backend's input-generation hooks (the CPU backend's).
#include "device/backend.h"

#include <span>

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

}  // namespace kh
