import math
import torch


def chunk_gated_delta_rule(q, k, v, g=None, beta=None, scale=None, initial_state=None, output_final_state=False,
                           cu_seqlens=None, use_qk_l2norm_in_kernel=False, output=None, output_state=None):
    assert g.dtype == torch.float32 and beta.dtype == torch.float32 and cu_seqlens.dtype == torch.int64
    T, HQ, K = q.shape
    HV = v.shape[1]
    N = cu_seqlens.numel() - 1
    assert g.shape == (T, HV) and beta.shape == (T, HV)
    if initial_state is not None:
        assert initial_state.shape == (N, HV, K, K) and initial_state.dtype == torch.float32
    scale = scale if scale is not None else 1 / math.sqrt(K)
    out = torch.empty(T, HV, K, dtype=q.dtype)
    st = torch.empty(N, HV, K, K)
    for n in range(N):
        s, e = int(cu_seqlens[n]), int(cu_seqlens[n + 1])
        assert e > s, "empty sequence would hang the real kernel"
        S = torch.zeros(HV, K, K) if initial_state is None else initial_state[n].clone()  # [HV, V, K]
        for t in range(s, e):
            for h in range(HV):
                kk = k[t, h // (HV // HQ)].float(); qq = q[t, h // (HV // HQ)].float()
                S[h] = g[t, h] * S[h]
                old = S[h] @ kk
                S[h] = S[h] + torch.outer(beta[t, h] * (v[t, h].float() - old), kk)
                out[t, h] = (scale * (S[h] @ qq)).to(q.dtype)
        st[n] = S
    return (out, st) if output_final_state else out
