// Shared pieces of the DSA top-k indexer tests: hand-built inputs, the CPU reference
// and baseline called directly, generated inputs, and the operator's checker.
#pragma once

#include <kharness/kernel.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "eval/check/output_checker.h"
#include "eval/input_generator.h"
#include "eval/operator_library.h"
#include "tensor/float_formats.h"
#include "tensor/host_tensor.h"

void dsa_topk_indexer_reference(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                const DLTensor* weights, const DLTensor* seq_lens,
                                const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream);
void dsa_topk_indexer_baseline(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                               const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                               DLTensor* topk_indices, kh_stream_t stream);

namespace kh::dsa_topk_test {

inline constexpr char kName[] = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64";
inline constexpr std::int64_t kTopK = 2048;
inline constexpr std::int64_t kPage = 64;
inline constexpr std::int64_t kDim = 128;
inline constexpr std::int64_t kHeads = 64;
enum Input : std::size_t { kQ = 0, kCache = 1, kWeights = 2, kSeqLens = 3, kTable = 4 };

inline const OperatorEntry& indexer_op() {
  static const OperatorLibrary ops =
      OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  return *ops.find(kName);
}

// Zeroed inputs (all keys, queries and weights 0, scales 0) for hand-made cases.
inline std::vector<HostTensor> zero_inputs(std::int64_t batch, std::int64_t max_pages,
                                           std::int64_t num_pages) {
  std::vector<HostTensor> in;
  in.emplace_back(DType::float8_e4m3fn, std::vector<std::int64_t>{batch, kHeads, kDim});
  in.emplace_back(DType::int8, std::vector<std::int64_t>{num_pages, kPage, 1, kDim + 4});
  in.emplace_back(DType::float32, std::vector<std::int64_t>{batch, kHeads});
  in.emplace_back(DType::int32, std::vector<std::int64_t>{batch});
  in.emplace_back(DType::int32, std::vector<std::int64_t>{batch, max_pages});
  return in;
}

// Value `value` (exact in e4m3) at dimension `dim` of token `offset` of `page`.
inline void set_key(std::vector<HostTensor>& in, std::int64_t page, std::int64_t offset, std::int64_t dim,
                    float value) {
  in[kCache].as<std::uint8_t>()[page * kPage * (kDim + 4) + offset * kDim + dim] = float_to_e4m3fn(value);
}

// The float32 scale of token `offset` of `page`: after the page's 64 x 128 values.
inline void set_scale(std::vector<HostTensor>& in, std::int64_t page, std::int64_t offset, float scale) {
  std::memcpy(in[kCache].bytes().data() + page * kPage * (kDim + 4) + kPage * kDim + 4 * offset, &scale, 4);
}

inline void set_q(std::vector<HostTensor>& in, std::int64_t b, std::int64_t head, std::int64_t dim,
                  float value) {
  in[kQ].as<std::uint8_t>()[(b * kHeads + head) * kDim + dim] = float_to_e4m3fn(value);
}

using Entry = void (*)(const DLTensor*, const DLTensor*, const DLTensor*, const DLTensor*, const DLTensor*,
                       DLTensor*, kh_stream_t);

// Runs a CPU entry point on `in`; the output starts poisoned so unwritten entries show.
inline HostTensor run(Entry entry, std::vector<HostTensor>& in) {
  HostTensor out(DType::int32, {in[kQ].shape()[0], kTopK});
  std::memset(out.bytes().data(), 0xA5, out.nbytes());
  std::vector<DLTensor> views;
  for (HostTensor& t : in) views.push_back(t.dlpack_view());
  DLTensor o = out.dlpack_view();
  entry(&views[0], &views[1], &views[2], &views[3], &views[4], &o, nullptr);
  return out;
}
inline HostTensor run_reference(std::vector<HostTensor>& in) { return run(&dsa_topk_indexer_reference, in); }
inline HostTensor run_baseline(std::vector<HostTensor>& in) { return run(&dsa_topk_indexer_baseline, in); }

// Inputs from the operator's generator, for an ad-hoc shape.
inline std::vector<HostTensor> generated(std::int64_t batch, std::int64_t max_pages, std::int64_t num_pages,
                                         std::uint64_t seed) {
  Workload w;
  w.uuid = "dsa-topk-test";
  w.axes.add("batch_size", batch);
  w.axes.add("max_num_pages", max_pages);
  w.axes.add("num_pages", num_pages);
  return make_inputs(indexer_op().definition, w, seed, std::filesystem::path("."));
}

inline Tolerance indexer_tolerance() { return indexer_op().tolerance.value_or(Tolerance{}); }

inline CheckVerdict check(const std::vector<HostTensor>& in, const HostTensor& reference,
                          const HostTensor& candidate, Tolerance tolerance = indexer_tolerance()) {
  std::vector<HostTensor> ref;
  ref.push_back(reference.clone());
  std::vector<HostTensor> cand;
  cand.push_back(candidate.clone());
  const std::unique_ptr<OutputChecker> checker = make_output_checker(indexer_op().checker);
  const CheckContext ctx{indexer_op().definition, ref, cand, tolerance,
                         [&]() -> const std::vector<HostTensor>& { return in; }};
  return checker->check(ctx);
}

}  // namespace kh::dsa_topk_test
