// The per-(token, v-head) gates of the gated delta rule, in float32 as the Python
// reference computes them; usable from host code (g++) and device code (nvcc).
//   g    = exp(-exp(A_log) * softplus(a + dt_bias))   (decay of the state)
//   beta = sigmoid(b)                                  (write strength)
// softplus follows torch.nn.functional.softplus (beta 1, threshold 20): linear above 20,
// so that exp never overflows.
#pragma once

#include <math.h>

#if defined(__CUDACC__)
#define GDN_HOST_DEVICE __host__ __device__
#else
#define GDN_HOST_DEVICE
#endif

// Heads: 4 q/k heads, 8 v heads; v head h reads q/k head h / 2 (repeat_interleave).
#define GDN_NUM_QK_HEADS 4
#define GDN_NUM_V_HEADS 8
#define GDN_HEAD_SIZE 128
#define GDN_V_PER_QK (GDN_NUM_V_HEADS / GDN_NUM_QK_HEADS)

GDN_HOST_DEVICE inline float gdn_softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

GDN_HOST_DEVICE inline float gdn_decay(float a, float A_log, float dt_bias) {
  return expf(-expf(A_log) * gdn_softplus(a + dt_bias));
}

GDN_HOST_DEVICE inline float gdn_beta(float b) { return 1.0f / (1.0f + expf(-b)); }

// A scale of 0 means the default 1/sqrt(head_size), as in the reference.
GDN_HOST_DEVICE inline float gdn_effective_scale(float scale) {
  return scale == 0.0f ? 1.0f / sqrtf(static_cast<float>(GDN_HEAD_SIZE)) : scale;
}
