// Host-side launchers of the small kernels the GPU tests time (test_kernels.cu).
// Each launches asynchronously on the given stream and checks the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kh::test {

// One thread that spins on %globaltimer for the given time: a kernel of known length.
void launch_spin(cudaStream_t stream, double microseconds);
// A kernel that does nothing: the floor of the timers.
void launch_empty(cudaStream_t stream);
// Reads n floats (grid-stride) and writes one value that depends on all of them.
void launch_read(const float* data, std::size_t n, float* out, cudaStream_t stream);
// Writes to an unmapped address: a sticky cudaErrorIllegalAddress.
void launch_illegal_write(cudaStream_t stream);

}  // namespace kh::test
