// Makes the inputs of one workload from a seed, where the kernels will read them.
//
// The generic rule (tensor/random_fill.h) fills every "random" input; safetensors
// inputs are loaded and their dtype and shape checked; scalar inputs take the
// workload's value. Operators whose inputs must be *valid* data (page tables,
// sequence lengths, sparse indices, routing logits) bring a StructuredInputs generator,
// next to the operator (operators/<definition>/harness/), registered by definition name
// or op_type; it runs after the generic fill and overwrites the inputs it owns.
//
// Generation happens in place: on the device for the CUDA backend (the worker never
// builds the inputs on the host) and in host memory for the CPU backend and the
// orchestrator (make_inputs). Both compute every byte with the same portable steps, so
// the device's bytes equal the host twin's (docs/evaluation.md, "Inputs made on the
// device"); the worker's input hashes and the orchestrator's regenerated inputs rely on it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/generation_site.h"
#include "eval/workload_shapes.h"
#include "tensor/host_tensor.h"
#include "trace/definition.h"
#include "trace/workload.h"

namespace kh {

// One input of a set, where its bytes lie (host or device memory).
struct InputSlot {
  std::string name;
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  bool scalar = false;
  double scalar_value = 0;  // scalars: the value (a generator may set a random one)
  void* data = nullptr;     // tensors: the bytes; null for scalars
  std::size_t numel = 0;
  std::size_t bytes = 0;
  bool random = true;   // the workload left it random: only then may a generator write it
  bool zeroed = false;  // the bytes are known to be zero (fresh host tensors): zeros need not be written

  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(data);
  }
};

struct InputRequest {
  const Definition& definition;
  const AxisValues& axes;
  std::uint64_t seed;
};

class StructuredInputs {
 public:
  virtual ~StructuredInputs() = default;
  // Overwrites the inputs (in definition order) that need valid structure, at `site`.
  // It may only write inputs whose `random` is set: loaded and scalar inputs are the
  // workload's. Work may stay queued on site.stream(); the caller waits for it.
  virtual void generate(const InputRequest& request, GenerationSite& site,
                        std::vector<InputSlot>& inputs) const = 0;
  // True for a random input that generate() always overwrites completely: the generic
  // fill then skips it (a gigabyte of MoE weights would be filled only to be replaced).
  [[nodiscard]] virtual bool replaces(std::string_view /*input*/) const { return false; }
};

// Registers a generator for a definition name or op_type. Later registrations win.
void register_structured_inputs(std::string key, std::shared_ptr<const StructuredInputs> generator);

// The input called `name`, or null.
[[nodiscard]] InputSlot* find_input(std::vector<InputSlot>& inputs, std::string_view name) noexcept;
// The input called `name`; kh::Error naming `who` and the input when there is none.
[[nodiscard]] InputSlot& input_named(std::vector<InputSlot>& inputs, std::string_view name,
                                     std::string_view who);

// Seed for input number `index` of a set generated from `seed`: inputs of one set
// must differ from each other even though they share the set's seed.
[[nodiscard]] std::uint64_t input_seed(std::uint64_t seed, std::size_t index) noexcept;

// The inputs of `workload` in definition order, shaped and typed but not placed.
[[nodiscard]] std::vector<InputSlot> input_layout(const Definition& definition, const Workload& workload,
                                                  const AxisValues& axes);

// The safetensors inputs of one workload, read once and reused by every set of a request.
class LoadedTensors {
 public:
  LoadedTensors(const Definition& definition, const Workload& workload, std::filesystem::path root);
  // Input `index` (in definition order), which the workload loads from a file.
  [[nodiscard]] const HostTensor& get(std::size_t index, const AxisValues& axes);

 private:
  const Definition& definition_;
  const Workload& workload_;
  std::filesystem::path root_;
  std::map<std::size_t, HostTensor> loaded_;
};

// Fills `inputs` (placed: every tensor's data set) with the set drawn from `seed`, at
// `site`. Work may stay queued until site.finish(). Throws kh::Error naming the
// workload, input and file.
void generate_inputs(const Definition& definition, const Workload& workload, const AxisValues& axes,
                     std::uint64_t seed, LoadedTensors& loaded, GenerationSite& site,
                     std::vector<InputSlot>& inputs);

// All inputs of `workload` in definition order, in host memory (the host twin). `root`
// is the trace set's root, for safetensors paths.
[[nodiscard]] std::vector<HostTensor> make_inputs(const Definition& definition, const Workload& workload,
                                                  std::uint64_t seed, const std::filesystem::path& root);

// Runs `generator` over host tensors (tests and tools that hold HostTensors): `random[i]`
// says which inputs it may write; scalars it sets are written back into their tensors.
void generate_structured_on_host(const StructuredInputs& generator, const Definition& definition,
                                 const AxisValues& axes, std::uint64_t seed, std::vector<HostTensor>& inputs,
                                 const std::vector<bool>& random);

}  // namespace kh
