#include "eval/input_generator.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <variant>

#include "error/error.h"
#include "eval/inputs/builtin_inputs.h"
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
  register_builtin_inputs();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const std::string& key : {d.name, d.op_type}) {
    auto it = r.by_key.find(key);
    if (it != r.by_key.end()) return it->second;
  }
  return nullptr;
}

HostTensor make_tensor(const TensorSpec& spec, const AxisValues& axes, const std::string& name) {
  if (spec.is_scalar()) return HostTensor::scalar(spec.dtype);
  return HostTensor(spec.dtype, concrete_shape(spec, axes, name));
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

void set_scalar(HostTensor& t, const ScalarInput& in, const std::string& name, const Workload& w) {
  if (!in.value.is_number() && !in.value.is_boolean()) {
    throw Error(input_location(w, name), "scalar input value must be a number or a boolean");
  }
  write_from_double(t, 0,
                    in.value.is_boolean() ? (in.value.get<bool>() ? 1.0 : 0.0) : in.value.get<double>());
}

}  // namespace

void register_structured_inputs(std::string key, std::shared_ptr<const StructuredInputs> generator) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.by_key[std::move(key)] = std::move(generator);
}

std::uint64_t input_seed(std::uint64_t seed, std::size_t index) noexcept {
  // SplitMix64 finaliser over (seed, index): neighbouring indices give unrelated seeds.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<HostTensor> make_inputs(const Definition& definition, const Workload& workload,
                                    std::uint64_t seed, const std::filesystem::path& root) {
  const AxisValues axes = resolve_axes(definition, workload);
  const std::shared_ptr<const StructuredInputs> structured = find_structured(definition);
  std::vector<HostTensor> inputs;
  std::vector<bool> random;
  std::size_t index = 0;
  for (const auto& [name, spec] : definition.inputs) {
    HostTensor t = make_tensor(spec, axes, name);
    const WorkloadInput* source = workload.inputs.find(name);
    if (source != nullptr && std::holds_alternative<SafetensorsInput>(source->source)) {
      t = load_safetensors(std::get<SafetensorsInput>(source->source), spec, axes, name, workload, root);
    } else if (source != nullptr && std::holds_alternative<ScalarInput>(source->source)) {
      set_scalar(t, std::get<ScalarInput>(source->source), name, workload);
    } else if (structured == nullptr || !structured->replaces(name)) {
      fill_random(t, input_seed(seed, index));
    }
    random.push_back(source == nullptr || std::holds_alternative<RandomInput>(source->source));
    inputs.push_back(std::move(t));
    ++index;
  }
  if (structured != nullptr) structured->generate(definition, axes, seed, inputs, random);
  return inputs;
}

std::vector<HostTensor> make_outputs(const Definition& definition, const AxisValues& axes) {
  std::vector<HostTensor> outputs;
  for (const auto& [name, spec] : definition.outputs) outputs.push_back(make_tensor(spec, axes, name));
  return outputs;
}

}  // namespace kh
