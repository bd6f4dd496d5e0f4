// scale_prefetch: rank_select (below) with the score kernel's per-page scale loads taken off the
// critical path: each block's page loop loaded a page's 64 scale bytes from DRAM at the top of
// that page's iteration and needed them right after the MMAs (~0.3 us later), so with ppb >= 2
// pages a block (every workload with batch x max_num_pages > 264: the medium and large regimes)
// each page paid a DRAM latency (~0.8-1 us under load) on top of its keys, which are loaded a page
// ahead. Here the scales of the page after next are prefetched into L2 (prefetch.global.L2: no
// register, no effect on results; keeping them in registers a page ahead spilled at the 128-register
// cap), so the in-loop scale load is an L2 hit (~0.3 us, overlapped with the MMAs).
// Expected: the score kernel ~20-35% faster where blocks take several pages (ncu, B25 P186: 26.6
// us, 0.8 TB/s): B16 P300 44.3 -> ~36 us, B31 P512 87.3 -> ~70; small calls as rank_select.
//
// rank_select: range_select (f16 mma.sync scoring + one block of 1024 threads per request selecting
// over 2048 bins spread on the row's [min, max]) with a shorter serial chain in the selection.
//
// Why faster: the H200 profile (bench/results/h200-loop/2026-12-04/call5) puts the selection
// kernel at 15-20 us per call whatever the row length (B3 P99, 6K-key rows: 15.0 us; B4 P301:
// 20.4; B25 P186: 18.7), i.e. ~13 us of fixed serial latency plus ~0.35 us per 1K keys, with one
// SM ~35% busy: a chain of ~900 dependent instructions and ~18 block-wide barriers per warp. Its
// refinement of the threshold bin (3 radix passes, each a histogram, a 1024-thread block scan and
// 3 barriers, plus the zeroing) is ~half of that chain, for a bin that holds ~10-100 keys. Here:
//  - the threshold bin's keys (<= 256 of them, the usual case) are ranked directly: each listed key
//    counts the keys above it (key descending, list position breaking ties), one thread per key,
//    no barrier, no scan; ranks below `need` go to slots A + rank (exact, ties included). Longer
//    bins (tie-heavy rows) keep range_select's radix refinement unchanged;
//  - the keys are listed with their order keys during the gather (no extra sweep);
//  - the row's block-table prefix is staged in shared memory in the load sweep, so the gather's
//    index computation is a shared-memory read instead of a dependent L2 load per key;
//  - every warp reduces the per-warp min/max itself (one barrier less); int32 loop indices;
//  - the score kernel reads its first page's table entry before seq_len is known (one dependent
//    global round trip less, ~0.5-1 us on a cold L2);
//  - cudaFuncSetAttribute once per process instead of on every call.
// Expected: ~3-5 us less on every workload that scores (fixed chain ~13 -> ~8 us): loop set
// B1 P128 20.7 -> ~16, B8 P65 19.6 -> ~15, B26 P66 26.7 -> ~22, B16 P300 44.3 -> ~40, B31 P512
// 87.3 -> ~83; mean 27.4 -> ~23 us (baseline 67.8).
// Accuracy: scoring as range_select (f16-widened e4m3, f32 accumulation); selection exact on the
// f32 scores.
// The code: the operator's indexer_mma_score.cuh (run<false, true>), whose scoring kernel is
// indexer_fp8_mma_score.cuh's with kPrefetchScales.
#include "indexer_mma_score.cuh"

void dsa_topk_indexer_scale_prefetch(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                     const DLTensor* weights, const DLTensor* seq_lens,
                                     const DLTensor* block_table, DLTensor* topk_indices,
                                     kh_stream_t stream) {
  dsa_mma_score::run<false, true>(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table,
                                  topk_indices, stream);
}
