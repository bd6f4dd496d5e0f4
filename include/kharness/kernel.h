/* kharness kernel ABI, version 1.
 *
 * A solution's entry point is an ordinary C or C++ function in destination-passing
 * style: the definition's inputs in order, then its outputs in order, then the stream.
 *
 *   - a tensor input is      `const DLTensor*`
 *   - a tensor output is     `DLTensor*`        (allocated and poisoned by the harness)
 *   - a scalar input is the plain C type of its dtype:
 *         float32 -> float, float16/bfloat16 -> float, int64 -> int64_t,
 *         int32 -> int32_t, int16 -> int16_t, int8 -> int8_t, bool -> bool
 *   - the last argument is   `kh_stream_t` (cudaStream_t for CUDA; void*, always
 *     NULL, for the CPU backend). `void*` is accepted in its place.
 *
 * The return type is void, or an int where non-zero means failure. The harness
 * checks the signature against the definition at build time and reports a
 * mismatch as COMPILE_ERROR naming the argument.
 *
 * Example for rmsnorm (inputs hidden_states, weight; output output):
 *
 *   #include <kharness/kernel.h>
 *   void rmsnorm(const DLTensor* hidden_states, const DLTensor* weight,
 *                DLTensor* output, kh_stream_t stream);
 *
 * Tensors are compact, row-major, with `strides == NULL`, `byte_offset == 0`,
 * on the device that runs the kernel. DLPack 0.6 lacks codes for the 8- and 4-bit
 * floats, so the DLPack 1.1 codes below are used.
 */
#ifndef KHARNESS_KERNEL_H_
#define KHARNESS_KERNEL_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_H__)
#include <cuda_runtime.h>
typedef cudaStream_t kh_stream_t;
#else
typedef void* kh_stream_t;
#endif

#define KH_ABI_VERSION 1

/* DLPack 1.1 type codes, for headers that predate them. */
#define KH_DL_FLOAT8_E4M3FN 10
#define KH_DL_FLOAT8_E5M2 12
#define KH_DL_FLOAT4_E2M1FN 17
#define KH_DL_BOOL 6
#define KH_DL_BFLOAT 4

#ifdef __cplusplus
#include <cstddef>
/* Element count of a tensor: the product of its shape. */
inline int64_t kh_numel(const DLTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}
#endif

#endif /* KHARNESS_KERNEL_H_ */
