#include "eval/generation_site.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>

#include "error/error.h"
#include "tensor/dtype.h"

namespace kh {

namespace {
std::pair<const std::byte*, const std::byte*> byte_range(const Backend::RandomFill& f) {
  const auto* begin = static_cast<const std::byte*>(f.data);
  return {begin, begin + dtype_storage_bytes(f.dtype, f.numel)};
}
}  // namespace

GenerationSite::GenerationSite(Backend& backend)
    : backend_(&backend),
      on_device_(backend.dlpack_device_type() != kDLCPU),
      stream_(on_device_ ? backend.harness_stream() : nullptr) {}

void GenerationSite::fill(const std::vector<Backend::RandomFill>& fills) {
  if (fills.empty()) return;
  if (on_device_) {
    // One batch's fills run side by side, so a fill of bytes already queued goes after them.
    for (const Backend::RandomFill& f : fills) {
      if (f.numel == 0) continue;  // writes nothing
      if (overlaps_queued(f)) launch_queued_fills();
      queued_fills_.push_back(f);
      queued_ranges_.insert(byte_range(f));
    }
  } else {
    Backend::fill_random_on_host(fills);
  }
}

bool GenerationSite::overlaps_queued(const Backend::RandomFill& fill) const {
  const auto [begin, end] = byte_range(fill);
  // The queued ranges do not overlap one another, so only the one starting at or
  // before `begin` and those starting inside [begin, end) can meet this one.
  auto it = queued_ranges_.upper_bound(begin);
  if (it != queued_ranges_.begin() && std::prev(it)->second > begin) return true;
  return it != queued_ranges_.end() && it->first < end;
}

void GenerationSite::launch_queued_fills() {
  if (queued_fills_.empty()) return;
  const std::vector<Backend::RandomFill> fills = std::exchange(queued_fills_, {});
  queued_ranges_.clear();
  backend_->fill_random(fills);
}

void* GenerationSite::stream() {
  launch_queued_fills();
  return stream_;
}

void GenerationSite::upload(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  launch_queued_fills();  // an upload may overwrite part of what a fill wrote
  if (on_device_) {
    backend_->upload(dst, src, bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

void GenerationSite::download(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  launch_queued_fills();
  if (on_device_) {
    backend_->download(dst, src, bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

const void* GenerationSite::table(std::string_view name, const void* bytes, std::size_t size) {
  launch_queued_fills();
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
  launch_queued_fills();
  device_scratch_.emplace_back(*backend_, bytes);
  backend_->fill(device_scratch_.back().data(), 0, bytes);
  return device_scratch_.back().data();
}

void GenerationSite::finish() {
  launch_queued_fills();
  if (on_device_) backend_->synchronize();
}

}  // namespace kh
