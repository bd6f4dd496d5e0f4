// The "correct improvement" a scripted model proposes for rmsnorm_h128 on the CPU: no
// heap allocation per call (the baseline allocates two buffers), one read of each row
// for the sum of squares with eight independent partial sums (the compiler can keep
// them in vector registers without reassociating), and the weight converted once into
// a stack buffer.
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

inline float bf16_to_float(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

constexpr int64_t kCols = 128;  // hidden_size is a const axis of the definition

}  // namespace

void rmsnorm_fast(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output, kh_stream_t) {
  const int64_t rows = hidden_states->shape[0];
  const auto* x = static_cast<const uint16_t*>(hidden_states->data);
  const auto* w = static_cast<const uint16_t*>(weight->data);
  auto* y = static_cast<uint16_t*>(output->data);
  alignas(64) float wf[kCols];
  for (int64_t c = 0; c < kCols; ++c) wf[c] = bf16_to_float(w[c]);
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* row = x + r * kCols;
    alignas(64) float xf[kCols];
    float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t c = 0; c < kCols; c += 8) {
      for (int k = 0; k < 8; ++k) {
        xf[c + k] = bf16_to_float(row[c + k]);
        part[k] += xf[c + k] * xf[c + k];
      }
    }
    const float sum =
        ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
    const float inv_rms = 1.0f / std::sqrt(sum / static_cast<float>(kCols) + 1e-5f);
    uint16_t* out = y + r * kCols;
    for (int64_t c = 0; c < kCols; ++c) out[c] = float_to_bf16(xf[c] * inv_rms * wf[c]);
  }
}
