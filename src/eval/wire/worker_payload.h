// Encoding of measurement replies: tensors travel as a JSON description plus their
// bytes concatenated in the payload; a timing result's samples and input hashes travel
// in its payload too (timed_reply), since parsing them as JSON cost the orchestrator
// 0.2 ms a request.
// Both sides of the channel use these, so the format lives in one place.
#pragma once

#include <cstddef>
#include <cstdint>
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

// Content hashes of input sets: one per input, in definition order, set by set.
using InputSetHashes = std::vector<std::vector<std::uint64_t>>;

// The "time" reply: timer, stop reason and the kept output slots merged into `fields`;
// the samples and the input sets' hashes before and after the loop in the payload.
[[nodiscard]] Message timed_reply(std::uint64_t request_id, const TimedLoopResult& result,
                                  const InputSetHashes& before, const InputSetHashes& after,
                                  ordered_json fields);

// What a "time" reply's payload carries.
struct TimedReplyBulk {
  std::vector<TimedSample> samples;
  InputSetHashes before;
  InputSetHashes after;
};
// Reads it back, for `sets` input sets of `hashes_per_set` hashes each. Throws kh::Error
// when the header's account and the payload disagree with each other or with these
// counts (a forged or truncated reply).
[[nodiscard]] TimedReplyBulk read_timed_bulk(const Message& reply, std::size_t sets,
                                             std::size_t hashes_per_set);

}  // namespace kh
