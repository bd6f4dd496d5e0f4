#include "device/device_lane.h"

#include <algorithm>
#include <charconv>

#include "error/error.h"

namespace kh {

namespace {

std::vector<int> parse_ordinals(std::string_view spec) {
  std::vector<int> out;
  std::size_t begin = 0;
  while (begin <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', begin), spec.size());
    const std::string_view item = spec.substr(begin, comma - begin);
    int ordinal = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), ordinal);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || ordinal < 0) {
      throw Error(Location{"", 0, "--gpus"},
                  "'" + std::string(item) + "' is not a device ordinal (expected all or a list such as 0,1)");
    }
    if (std::find(out.begin(), out.end(), ordinal) != out.end()) {
      throw Error(Location{"", 0, "--gpus"}, "device " + std::to_string(ordinal) + " is named twice");
    }
    out.push_back(ordinal);
    begin = comma + 1;
  }
  return out;
}

DeviceLane cuda_lane(const GpuIdentity& g) {
  DeviceLane lane{g.ordinal, "cuda", g.uuid, g.pci_bus_id, g.name, {}};
  lane.env = {{"CUDA_VISIBLE_DEVICES", g.uuid}};
  return lane;
}

}  // namespace

std::vector<DeviceLane> device_lanes(std::string_view backend, std::string_view spec) {
  if (backend == "cpu") {
    if (spec == "all") return {DeviceLane{0, "cpu", "", "", "cpu lane 0", {}}};
    std::vector<DeviceLane> lanes;
    for (const int i : parse_ordinals(spec))
      lanes.push_back(DeviceLane{i, "cpu", "", "", "cpu lane " + std::to_string(i), {}});
    return lanes;
  }
  if (backend != "cuda")
    throw Error(Location{"", 0, "--gpus"}, "unknown backend '" + std::string(backend) + "'");
  const std::vector<GpuIdentity> present = cuda_devices();
  std::vector<DeviceLane> lanes;
  if (spec == "all") {
    for (const GpuIdentity& g : present) lanes.push_back(cuda_lane(g));
    return lanes;
  }
  for (const int i : parse_ordinals(spec)) {
    const auto it =
        std::find_if(present.begin(), present.end(), [&](const GpuIdentity& g) { return g.ordinal == i; });
    if (it == present.end()) {
      throw Error(Location{"", 0, "--gpus"}, "no CUDA device " + std::to_string(i) + " (" +
                                                 std::to_string(present.size()) + " present)");
    }
    lanes.push_back(cuda_lane(*it));
  }
  return lanes;
}

#ifndef KHARNESS_WITH_CUDA
std::vector<GpuIdentity> cuda_devices() {
  throw Error("no CUDA device: this binary was built without the CUDA toolkit");
}
#endif

}  // namespace kh
