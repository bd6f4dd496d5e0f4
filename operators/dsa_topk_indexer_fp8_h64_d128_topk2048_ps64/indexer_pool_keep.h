// The stream-ordered memory pool kept mapped (pool_keep's, then every indexer candidate's since
// range_select): by default the pool returns freed memory to the OS at every synchronisation (the
// harness synchronises the device after each call), so each call's cudaMallocAsync maps fresh
// memory and stalls the stream for tens of microseconds (measured on the H200 for the
// dsa_sparse_attention baseline, which does the same). Keeping it mapped makes the scratch a cheap
// reuse.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

// Host-side, once per process.
inline void keep_pool_memory_mapped() {
  static const bool done = [] {
    int device = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    return true;
  }();
  (void)done;
}
