// Makes the inputs of one workload from a seed.
//
// The generic rule (tensor/random_fill.h) fills every "random" input; safetensors
// inputs are loaded and their dtype and shape checked; scalar inputs take the
// workload's value. Operators whose inputs must be *valid* data (page tables,
// sequence lengths, sparse indices, routing logits) register a StructuredInputs
// generator by definition op_type or name; it runs after the generic fill and
// overwrites the inputs it owns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/workload_shapes.h"
#include "tensor/host_tensor.h"
#include "trace/definition.h"
#include "trace/workload.h"

namespace kh {

class StructuredInputs {
 public:
  virtual ~StructuredInputs() = default;
  // Overwrites the inputs (in definition order) that need valid structure. It may only
  // touch input i where random[i] is true: loaded and scalar inputs are the workload's.
  virtual void generate(const Definition& definition, const AxisValues& axes, std::uint64_t seed,
                        std::vector<HostTensor>& inputs, const std::vector<bool>& random) const = 0;
  // True for a random input that generate() always overwrites completely: make_inputs
  // then leaves it zeroed instead of filling it first, because the generic fill of a
  // large input (a gigabyte of MoE weights) costs seconds only to be thrown away.
  [[nodiscard]] virtual bool replaces(std::string_view /*input*/) const { return false; }
};

// Registers a generator for a definition name or op_type. Later registrations win.
void register_structured_inputs(std::string key, std::shared_ptr<const StructuredInputs> generator);

// Seed for input number `index` of a set generated from `seed`: inputs of one set
// must differ from each other even though they share the set's seed.
[[nodiscard]] std::uint64_t input_seed(std::uint64_t seed, std::size_t index) noexcept;

// All inputs of `workload` in definition order. `root` is the trace set's root, for
// safetensors paths. Throws kh::Error naming the workload, input and file.
[[nodiscard]] std::vector<HostTensor> make_inputs(const Definition& definition, const Workload& workload,
                                                  std::uint64_t seed, const std::filesystem::path& root);

// Zeroed output tensors of the right dtype and shape, in definition order.
[[nodiscard]] std::vector<HostTensor> make_outputs(const Definition& definition, const AxisValues& axes);

}  // namespace kh
