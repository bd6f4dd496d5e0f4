# C = A @ B.T in float16 with float32 accumulation, as a tiled Triton GEMM. B is [N, K]
# (row-major), read as K x N tiles without a transpose copy. N and K are fixed by the
# definition; M varies, so the tile height follows it. Destination-passing.
import triton
import triton.language as tl

N = {n}
K = {k}


@triton.jit
def _gemm(a_ptr, b_ptr, c_ptr, M, N: tl.constexpr, K: tl.constexpr, BLOCK_M: tl.constexpr,
          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * grid_n)
    first_m = group * GROUP_M
    group_size = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size)
    pid_n = (pid % (GROUP_M * grid_n)) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    b = b_ptr + rn[None, :].to(tl.int64) * K + rk[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a_tile = tl.load(a, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
        b_tile = tl.load(b, mask=(rn[None, :] < N) & (rk[:, None] + k0 < K), other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
        a += BLOCK_K
        b += BLOCK_K
    c = c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(c, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(A, B, C):
    M = A.shape[0]
    if M == 0:
        return
    block_m = 64 if M <= 64 else 128
    block_n = 128 if N >= 128 else 64
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    _gemm[grid](A, B, C, M, N=N, K=K, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=64, GROUP_M=8,
                num_warps=4 if block_m == 64 else 8, num_stages=4)
