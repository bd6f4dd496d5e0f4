# RMSNorm (optionally fused with a residual add) as one Triton program per row: the row
# is loaded once, reduced in float32, scaled and stored as bfloat16. Destination-passing:
# the harness's output tensor is written in place.
import triton
import triton.language as tl

HIDDEN = {hidden}
EPS = {eps}
BLOCK = triton.next_power_of_2(HIDDEN)
WARPS = min(16, max(1, BLOCK // 512))


@triton.jit
def _rmsnorm_rows(x_ptr, r_ptr, w_ptr, y_ptr, eps, N: tl.constexpr, BLOCK: tl.constexpr, FUSED: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    if FUSED:
        x += tl.load(r_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inv_rms = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(y_ptr + row * N + cols, (x * inv_rms * w).to(tl.bfloat16), mask=mask)


def _launch(hidden_states, residual, weight, output, fused):
    rows = hidden_states.shape[0]
    if rows == 0:
        return
    _rmsnorm_rows[(rows,)](hidden_states, residual, weight, output, EPS, N=HIDDEN, BLOCK=BLOCK, FUSED=fused,
                           num_warps=WARPS)
