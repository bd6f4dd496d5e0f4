#include "eval/generation_site.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "error/error.h"

namespace kh {

GenerationSite::GenerationSite(Backend& backend)
    : backend_(&backend),
      on_device_(backend.dlpack_device_type() != kDLCPU),
      stream_(on_device_ ? backend.harness_stream() : nullptr) {}

void GenerationSite::fill(const std::vector<Backend::RandomFill>& fills) {
  if (fills.empty()) return;
  if (on_device_) {
    backend_->fill_random(fills);
  } else {
    Backend::fill_random_on_host(fills);
  }
}

void GenerationSite::upload(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (on_device_) {
    backend_->upload(dst, src, bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

void GenerationSite::download(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (on_device_) {
    backend_->download(dst, src, bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

const void* GenerationSite::table(std::string_view name, const void* bytes, std::size_t size) {
  return on_device_ ? backend_->resident(name, bytes, size) : bytes;
}

GenerationSite::~GenerationSite() {
  if (on_device_ && !device_scratch_.empty()) {
    try {
      backend_->synchronize();  // kernels may still read the scratch about to be freed
    } catch (const Error& e) {
      std::fprintf(stderr, "kharness: input generation failed while its scratch was freed: %s\n", e.what());
    }
  }
}

void* GenerationSite::scratch(std::size_t bytes) {
  if (!on_device_) {
    host_scratch_.push_back(
        std::make_unique<std::byte[]>(std::max<std::size_t>(bytes, 1)));  // value-initialised: zero
    return host_scratch_.back().get();
  }
  device_scratch_.emplace_back(*backend_, bytes);
  backend_->fill(device_scratch_.back().data(), 0, bytes);
  return device_scratch_.back().data();
}

void GenerationSite::finish() {
  if (on_device_) backend_->synchronize();
}

}  // namespace kh
