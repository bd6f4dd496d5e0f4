#include "device/host_peaks.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace kh {

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double median_seconds(int repeats, F&& work) {
  std::vector<double> s;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    work();
    s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

double copy_bandwidth() {
  // 256 MiB each way: far beyond any last-level cache, so this is DRAM.
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  std::vector<char> src(kBytes, 1);
  std::vector<char> dst(kBytes, 0);
  const double s = median_seconds(5, [&] { std::memcpy(dst.data(), src.data(), kBytes); });
  volatile char sink = dst[kBytes / 2];  // the copy is observable
  (void)sink;
  return 2.0 * static_cast<double>(kBytes) / s;  // read + write
}

double fma_rate() {
  // 16 independent chains of 4-float vectors (GCC/Clang vector extension, so the packed
  // instructions do not depend on the optimiser's mood): enough to cover the latency
  // of a multiply-add on any x86 or Arm core.
  using Vec = float __attribute__((vector_size(16)));
  constexpr int kChains = 16;
  constexpr long kSteps = 2'000'000;
  Vec acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = Vec{0.001f, 0.002f, 0.003f, 0.004f} * static_cast<float>(i + 1);
  volatile float a_in = 0.999999f;
  volatile float b_in = 1e-7f;
  const Vec a = Vec{1, 1, 1, 1} * static_cast<float>(a_in);
  const Vec b = Vec{1, 1, 1, 1} * static_cast<float>(b_in);
  const double s = median_seconds(3, [&] {
    for (long step = 0; step < kSteps; ++step) {
      for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * a + b;
    }
  });
  float sum = 0;
  for (const Vec& v : acc) sum += v[0] + v[1] + v[2] + v[3];
  volatile float sink = sum;
  (void)sink;
  return 2.0 * 4 * kChains * static_cast<double>(kSteps) / s;
}

}  // namespace

DevicePeaks measure_host_peaks() {
  DevicePeaks p;
  p.bandwidth = copy_bandwidth();
  p.fp32 = fma_rate();
  p.bf16_tensor = p.fp32;  // no tensor units: the same scalar/vector pipes
  p.fp8_tensor = p.fp32;
  p.method = "one core: memcpy of 256 MiB (read+write), 16 chains of 4-float multiply-adds; no tensor units";
  return p;
}

}  // namespace kh
