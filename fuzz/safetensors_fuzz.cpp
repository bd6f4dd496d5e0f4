// libFuzzer target for the safetensors reader: any byte string must either parse into
// views that lie inside the input, or throw kh::Error. Anything else (a crash, a sanitizer
// report, another exception type escaping) is a bug.
#include <cstddef>
#include <cstdint>
#include <span>

#include "error/error.h"
#include "tensor/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = std::as_bytes(std::span(data, size));
  try {
    const kh::SafetensorsFile file = kh::parse_safetensors(input, "<fuzz input>");
    unsigned sum = 0;
    for (const std::string& name : file.names()) {
      const kh::SafetensorsEntry& entry = file.info(name);
      // Reading every byte makes ASan check that each view lies inside the input.
      for (std::byte b : entry.bytes) sum += static_cast<unsigned>(b);
      const kh::HostTensor copy = file.load(name);
      if (copy.nbytes() != entry.bytes.size()) __builtin_trap();
    }
    for (const auto& [key, value] : file.metadata()) sum += static_cast<unsigned>(key.size() + value.size());
    volatile unsigned sink = sum;
    (void)sink;
  } catch (const kh::Error&) {
    // Rejecting malformed input with kh::Error is the expected outcome.
  }
  return 0;
}
