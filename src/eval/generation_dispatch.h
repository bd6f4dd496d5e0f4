// run_steps: a generator's step over [0, n) where its site is. On the device it calls
// the operator's launch function (defined in the operator's .cu file, which runs the
// same step in a kernel); on the host it runs the host twin's loop. A CPU-only build
// compiles no .cu file, so generators name their launches through KH_DEVICE_LAUNCH,
// which is null there (no device site exists in such a build).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "error/error.h"
#include "eval/generation_site.h"
#include "eval/host_generation_loop.h"

#ifdef KHARNESS_WITH_CUDA
#define KH_DEVICE_LAUNCH(function) (function)
#else
#define KH_DEVICE_LAUNCH(function) nullptr
#endif

namespace kh {

template <class Step>
using StepLaunch = void (*)(const Step&, std::uint64_t, void*);

template <class Step>
void run_steps(GenerationSite& site, std::uint64_t n, const Step& step,
               std::type_identity_t<StepLaunch<Step>> launch,
               std::size_t min_per_thread = std::size_t{1} << 16) {
  if (!site.on_device()) return run_steps_on_host(n, step, min_per_thread);
  if (launch == nullptr) throw Error("input generation on a device, in a build without CUDA");
  launch(step, n, site.stream());
}

}  // namespace kh
