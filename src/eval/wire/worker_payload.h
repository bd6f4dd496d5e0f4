// Encoding of measurement replies: tensors travel as a JSON description plus their
// bytes concatenated in the payload; timing results as JSON arrays of samples.
// Both sides of the channel use these, so the format lives in one place.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "eval/wire/timed_result.h"
#include "eval/workload_shapes.h"
#include "tensor/host_tensor.h"
#include "trace/definition.h"
#include "worker/message.h"

namespace kh {

using ordered_json = nlohmann::ordered_json;

// What a reply says of one tensor whose bytes it carries.
struct TensorLayout {
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  std::size_t nbytes = 0;
  bool scalar = false;  // an output scalar: no device buffer, zeros in a payload
};

// The layouts of a definition's outputs at `axes`.
[[nodiscard]] std::vector<TensorLayout> output_layouts(const Definition& definition, const AxisValues& axes);

// [{name, dtype, shape, nbytes}] for tensors named by `specs` in order.
[[nodiscard]] ordered_json describe_tensors(const NamedList<TensorSpec>& specs,
                                            const std::vector<TensorLayout>& t);
// Splits `payload` from `offset` into tensors as `description` says and checks that each
// one has the dtype and shape `expected` has. Throws kh::Error naming the tensor when
// the worker's answer does not fit (a forged or truncated reply).
[[nodiscard]] std::vector<HostTensor> split_tensors(const ordered_json& description,
                                                    std::span<const std::byte> payload, std::size_t& offset,
                                                    const std::vector<TensorLayout>& expected);

[[nodiscard]] ordered_json lingering_to_json(const LingeringWork& w);
[[nodiscard]] LingeringWork lingering_from_json(const ordered_json& j);

// The "time" reply: samples, timer and the kept output slots merged into `fields`.
[[nodiscard]] Message timed_reply(std::uint64_t request_id, const TimedLoopResult& result,
                                  ordered_json fields);
// Samples of a "time" reply, in order.
[[nodiscard]] std::vector<TimedSample> samples_from_json(const ordered_json& samples);

}  // namespace kh
