// The host twin's loop over a generator's steps: step(i) for every i in [0, n), split
// over the host's threads when n is large. A step writes its own element (or row, or
// page) and reads nothing another step writes, so the split changes who computes an
// index, never its bytes; device_generation_loop.cuh runs the same steps on the GPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace kh {

template <class Step>
void run_steps_on_host(std::size_t n, const Step& step, std::size_t min_per_thread = std::size_t{1} << 16) {
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t count = std::clamp<std::size_t>(n / std::max<std::size_t>(min_per_thread, 1), 1, threads);
  auto range = [&step](std::size_t begin, std::size_t end) {
    const Step local = step;  // a copy in registers, not reloaded through a reference
    for (std::size_t i = begin; i < end; ++i) local(i);
  };
  if (count == 1) return range(0, n);
  const std::size_t chunk = (n + count - 1) / count;
  std::vector<std::jthread> workers;
  for (std::size_t begin = 0; begin < n; begin += chunk)
    workers.emplace_back(range, begin, std::min(n, begin + chunk));
}

}  // namespace kh
