#include "eval/device_inputs.h"

#include <memory>

#include "eval/input_generator.h"
#include "eval/workload_shapes.h"

namespace kh {

namespace {

constexpr std::uint8_t kUnwrittenPattern = 0xA5;

DeviceTensor device_tensor(const Backend& backend, const InputSlot& s,
                           const std::shared_ptr<DeviceBuffer>& arena) {
  DeviceTensor d{s.dtype, s.shape, s.scalar, s.scalar_value, arena, s.data, s.bytes, {}};
  d.make_view(backend);
  return d;
}

}  // namespace

std::vector<std::vector<DeviceTensor>> generate_input_sets(Backend& backend, const Definition& definition,
                                                           const Workload& workload,
                                                           const std::filesystem::path& root,
                                                           const std::vector<std::uint64_t>& seeds) {
  const AxisValues axes = resolve_axes(definition, workload);
  const std::vector<InputSlot> layout = input_layout(definition, workload, axes);
  std::size_t set_bytes = 0;
  for (const InputSlot& s : layout) set_bytes += s.scalar ? 0 : arena_bytes(s.bytes);
  auto arena = std::make_shared<DeviceBuffer>(backend, set_bytes * seeds.size());
  LoadedTensors loaded(definition, workload, root);
  GenerationSite site(backend);
  // Every byte of a set is written by its generation. On the device the arena is first
  // filled with a pattern (a memset at bandwidth), so a generator that left bytes unwritten
  // shows in the comparison with the host twin instead of passing on leftover memory.
  if (site.on_device() && arena->size() > 0) backend.fill(arena->data(), kUnwrittenPattern, arena->size());
  std::vector<std::vector<DeviceTensor>> sets;
  sets.reserve(seeds.size());
  std::size_t offset = 0;
  for (std::uint64_t seed : seeds) {
    std::vector<InputSlot> slots = layout;
    for (InputSlot& s : slots) {
      if (s.scalar) continue;
      s.data = static_cast<std::byte*>(arena->data()) + offset;
      offset += arena_bytes(s.bytes);
    }
    generate_inputs(definition, workload, axes, seed, loaded, site, slots);
    std::vector<DeviceTensor> set;
    set.reserve(slots.size());
    for (const InputSlot& s : slots) set.push_back(device_tensor(backend, s, arena));
    sets.push_back(std::move(set));
  }
  site.finish();
  return sets;
}

}  // namespace kh
