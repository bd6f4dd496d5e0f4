# gdn_prefill_qk4_v8_d128_k_last on FlashInfer 0.6.4: flashinfer.gdn_prefill.chunk_gated_delta_rule,
# the SM90 (sm_90a) chunked delta-rule kernel (JIT module "gdn_prefill_sm90", CUTLASS/TMA).
# Mapping, read from the 0.6.4 sources:
# - g ("alpha") is the decay itself, not its log: the kernel takes log2f(alpha + 1e-10)
#   (flat_collective_tma_warpspecialized_delta_rule.hpp, AlphaProcessor), so
#   g = exp(-exp(A_log) * softplus(a + dt_bias)), beta = sigmoid(b), both float32 [T, 8].
# - GVA (4 q/k heads, 8 v heads): v head h uses q/k head h / 2 (flat_tile_scheduler.hpp),
#   the definition's repeat_interleave; gates and state are per v head (num_sab_heads = 8).
# - State: float32 [N, 8, V, K] k-last in and out, the definition's layout.
# - scale 0 means 1/sqrt(128) in both.
# - An empty sequence (only when T < N) would hang the kernel (its loops assume at least one
#   block), so then the non-empty sequences alone go to the kernel and the empty ones get
#   zero states (host-side compaction, taken only when T < N).
import torch
import torch.nn.functional as F

from flashinfer.gdn_prefill import chunk_gated_delta_rule


def _gates(A_log, a, dt_bias, b):
    g = torch.exp(-torch.exp(A_log.float()) * F.softplus(a.float() + dt_bias.float()))
    beta = torch.sigmoid(b.float())
    return g.contiguous(), beta.contiguous()


@torch.no_grad()
def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale):
    scale = float(scale)
    if scale == 0.0:
        scale = None  # the kernel's default, 1/sqrt(head_size)
    total = q.shape[0]
    num_seqs = cu_seqlens.shape[0] - 1
    g, beta = _gates(A_log, a, dt_bias, b)
    cu = cu_seqlens.to(torch.int64).contiguous()
    init = None if state is None else state.float().contiguous()
    if total >= num_seqs:  # the generator makes no empty sequence then (skill.md)
        out, new_state = chunk_gated_delta_rule(
            q.contiguous(), k.contiguous(), v.contiguous(), g=g, beta=beta, scale=scale, initial_state=init,
            output_final_state=True, cu_seqlens=cu)
        return out, new_state
    # Some sequences are empty: run the others only.
    lengths = (cu[1:] - cu[:-1]).cpu()
    keep = (lengths > 0).nonzero().squeeze(1)
    new_state = torch.zeros(num_seqs, v.shape[1], v.shape[2], k.shape[2], dtype=torch.float32, device=q.device)
    out = torch.zeros(total, v.shape[1], v.shape[2], dtype=q.dtype, device=q.device)
    if keep.numel() == 0:
        return out, new_state
    keep_dev = keep.to(q.device)
    sub_cu = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths[keep], 0)]).to(q.device)
    # Tokens are packed in sequence order and empty sequences hold none, so the token
    # array is unchanged: only cu_seqlens and the states are compacted.
    sub_init = None if init is None else init[keep_dev].contiguous()
    out, sub_state = chunk_gated_delta_rule(
        q.contiguous(), k.contiguous(), v.contiguous(), g=g, beta=beta, scale=scale, initial_state=sub_init,
        output_final_state=True, cu_seqlens=sub_cu)
    new_state[keep_dev] = sub_state
    return out, new_state
