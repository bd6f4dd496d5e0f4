#include "eval/input_generator.h"

#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <variant>

#include "error/error.h"
#include "eval/operator_harness.h"
#include "tensor/element_access.h"
#include "tensor/random_fill.h"
#include "tensor/safetensors.h"

namespace kh {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const StructuredInputs>, std::less<>> by_key;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::shared_ptr<const StructuredInputs> find_structured(const Definition& d) {
  register_operator_harnesses();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const std::string& key : {d.name, d.op_type}) {
    auto it = r.by_key.find(key);
    if (it != r.by_key.end()) return it->second;
  }
  return nullptr;
}

Location input_location(const Workload& w, const std::string& name) {
  return Location{"", 0, fmt::format("workload {}: inputs.{}", w.uuid, name)};
}

HostTensor load_safetensors(const SafetensorsInput& in, const TensorSpec& spec, const AxisValues& axes,
                            const std::string& name, const Workload& w, const std::filesystem::path& root) {
  const std::filesystem::path path = root / in.path;
  if (!std::filesystem::exists(path)) {
    throw Error(input_location(w, name),
                fmt::format("safetensors blob '{}' is missing (the trace set's blob/ folder is not present?)",
                            path.string()));
  }
  HostTensor t = SafetensorsFile::open(path.string()).load(in.tensor_key);
  const auto expected = concrete_shape(spec, axes, name);
  if (t.dtype() != spec.dtype) {
    throw Error(input_location(w, name),
                fmt::format("tensor '{}' in '{}' is {}, the definition says {}", in.tensor_key, path.string(),
                            dtype_name(t.dtype()), dtype_name(spec.dtype)));
  }
  if (t.shape() != expected) {
    throw Error(input_location(w, name),
                fmt::format("tensor '{}' in '{}' has shape [{}], expected [{}]", in.tensor_key, path.string(),
                            fmt::join(t.shape(), ", "), fmt::join(expected, ", ")));
  }
  return t;
}

double scalar_value(const ScalarInput& in, const std::string& name, const Workload& w, DType dtype) {
  if (!in.value.is_number() && !in.value.is_boolean()) {
    throw Error(input_location(w, name), "scalar input value must be a number or a boolean");
  }
  // Stored in the input's dtype and read back, so the value is what a kernel receives.
  HostTensor t = HostTensor::scalar(dtype);
  write_from_double(t, 0,
                    in.value.is_boolean() ? (in.value.get<bool>() ? 1.0 : 0.0) : in.value.get<double>());
  return read_as_double(t, 0);
}

// A random scalar: the default rule's first element, computed on the host (scalars
// never leave it).
double random_scalar(DType dtype, std::uint64_t seed) {
  HostTensor t = HostTensor::scalar(dtype);
  fill_random(t, seed, 1);
  return read_as_double(t, 0);
}

}  // namespace

void register_structured_inputs(std::string key, std::shared_ptr<const StructuredInputs> generator) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.by_key[std::move(key)] = std::move(generator);
}

InputSlot* find_input(std::vector<InputSlot>& inputs, std::string_view name) noexcept {
  for (InputSlot& s : inputs)
    if (s.name == name) return &s;
  return nullptr;
}

InputSlot& input_named(std::vector<InputSlot>& inputs, std::string_view name, std::string_view who) {
  if (InputSlot* s = find_input(inputs, name)) return *s;
  throw Error(Location{"", 0, "inputs"}, fmt::format("{} needs an input named '{}'", who, name));
}

std::uint64_t input_seed(std::uint64_t seed, std::size_t index) noexcept {
  // SplitMix64 finaliser over (seed, index): neighbouring indices give unrelated seeds.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<InputSlot> input_layout(const Definition& definition, const Workload& workload,
                                    const AxisValues& axes) {
  std::vector<InputSlot> slots;
  slots.reserve(definition.inputs.size());
  for (const auto& [name, spec] : definition.inputs) {
    InputSlot s;
    s.name = name;
    s.dtype = spec.dtype;
    s.scalar = spec.is_scalar();
    if (!s.scalar) s.shape = concrete_shape(spec, axes, name);
    s.numel = 1;
    for (std::int64_t d : s.shape) s.numel *= static_cast<std::size_t>(d);
    s.bytes = s.scalar ? 0 : dtype_storage_bytes(s.dtype, s.numel);
    const WorkloadInput* source = workload.inputs.find(name);
    s.random = source == nullptr || std::holds_alternative<RandomInput>(source->source);
    slots.push_back(std::move(s));
  }
  return slots;
}

LoadedTensors::LoadedTensors(const Definition& definition, const Workload& workload,
                             std::filesystem::path root)
    : definition_(definition), workload_(workload), root_(std::move(root)) {}

const HostTensor& LoadedTensors::get(std::size_t index, const AxisValues& axes) {
  auto it = loaded_.find(index);
  if (it != loaded_.end()) return it->second;
  const auto& [name, spec] = definition_.inputs.items.at(index);
  const WorkloadInput* source = workload_.inputs.find(name);
  if (source == nullptr || !std::holds_alternative<SafetensorsInput>(source->source))
    throw Error(input_location(workload_, name), "the workload does not load this input from a file");
  HostTensor t =
      load_safetensors(std::get<SafetensorsInput>(source->source), spec, axes, name, workload_, root_);
  return loaded_.emplace(index, std::move(t)).first->second;
}

void generate_inputs(const Definition& definition, const Workload& workload, const AxisValues& axes,
                     std::uint64_t seed, LoadedTensors& loaded, GenerationSite& site,
                     std::vector<InputSlot>& inputs) {
  const std::shared_ptr<const StructuredInputs> structured = find_structured(definition);
  std::vector<Backend::RandomFill> fills;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    InputSlot& s = inputs[i];
    const WorkloadInput* source = workload.inputs.find(s.name);
    if (source != nullptr && std::holds_alternative<SafetensorsInput>(source->source)) {
      const HostTensor& t = loaded.get(i, axes);
      if (s.scalar) {
        s.scalar_value = read_as_double(t, 0);
      } else {
        site.upload(s.data, t.bytes().data(), t.nbytes());
      }
    } else if (source != nullptr && std::holds_alternative<ScalarInput>(source->source)) {
      s.scalar_value = scalar_value(std::get<ScalarInput>(source->source), s.name, workload, s.dtype);
    } else if (s.scalar) {
      s.scalar_value = random_scalar(s.dtype, input_seed(seed, i));
    } else if (structured == nullptr || !structured->replaces(s.name)) {
      fills.push_back({s.data, s.dtype, s.numel, default_rule(s.dtype, input_seed(seed, i))});
    }
  }
  site.fill(fills);
  if (structured != nullptr) structured->generate(InputRequest{definition, axes, seed}, site, inputs);
}

std::vector<HostTensor> make_inputs(const Definition& definition, const Workload& workload,
                                    std::uint64_t seed, const std::filesystem::path& root) {
  const AxisValues axes = resolve_axes(definition, workload);
  std::vector<InputSlot> slots = input_layout(definition, workload, axes);
  std::vector<HostTensor> inputs;
  inputs.reserve(slots.size());
  for (InputSlot& s : slots) {
    inputs.push_back(s.scalar ? HostTensor::scalar(s.dtype) : HostTensor(s.dtype, s.shape));
    if (!s.scalar) s.data = inputs.back().bytes().data();
    s.zeroed = true;
  }
  LoadedTensors loaded(definition, workload, root);
  GenerationSite host;
  generate_inputs(definition, workload, axes, seed, loaded, host, slots);
  host.finish();
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].scalar) write_from_double(inputs[i], 0, slots[i].scalar_value);
  return inputs;
}

void generate_structured_on_host(const StructuredInputs& generator, const Definition& definition,
                                 const AxisValues& axes, std::uint64_t seed, std::vector<HostTensor>& inputs,
                                 const std::vector<bool>& random) {
  std::vector<InputSlot> slots;
  for (std::size_t i = 0; i < inputs.size() && i < definition.inputs.size(); ++i) {
    HostTensor& t = inputs[i];
    InputSlot s;
    s.name = definition.inputs.items[i].first;
    s.dtype = t.dtype();
    s.shape = t.shape();
    s.scalar = t.is_scalar();
    s.scalar_value = s.scalar ? read_as_double(t, 0) : 0.0;
    s.data = s.scalar ? nullptr : t.bytes().data();
    s.numel = t.numel();
    s.bytes = s.scalar ? 0 : t.nbytes();
    s.random = i < random.size() && random[i];
    slots.push_back(std::move(s));
  }
  GenerationSite host;
  generator.generate(InputRequest{definition, axes, seed}, host, slots);
  host.finish();
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].scalar && slots[i].random) write_from_double(inputs[i], 0, slots[i].scalar_value);
}

}  // namespace kh
