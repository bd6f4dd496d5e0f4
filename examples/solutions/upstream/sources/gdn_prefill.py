# Gated delta net prefill over variable-length sequences. The recurrence is sequential
# in time, but not across sequences: sequences are ordered by length, so at step i the
# ones still running are a prefix, and each step updates all of them (every head at
# once) with one delta-rule outer product in the k-last [N, H, V, K] layout.
import math

import torch
import torch.nn.functional as F


@torch.no_grad()
def run(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale):
    total, q_heads, head_k = q.shape
    v_heads, head_v = v.shape[1], v.shape[2]
    device = q.device
    if scale is None or scale == 0.0:
        scale = 1.0 / math.sqrt(head_k)
    bounds = cu_seqlens.tolist()
    num_seqs = len(bounds) - 1
    lengths = [max(0, bounds[s + 1] - bounds[s]) for s in range(num_seqs)]
    order = sorted(range(num_seqs), key=lambda s: -lengths[s])
    running = [sum(1 for s in order if lengths[s] > i) for i in range(lengths[order[0]] if order else 0)]

    g = torch.exp(-torch.exp(A_log.float()) * F.softplus(a.float() + dt_bias.float()))  # [T, HV]
    beta = torch.sigmoid(b.float())
    qf = q.float().repeat_interleave(v_heads // q_heads, dim=1)  # [T, HV, K]
    kf = k.float().repeat_interleave(v_heads // k.shape[1], dim=1)
    vf = v.float()
    starts = torch.tensor([bounds[s] for s in order], dtype=torch.long, device=device)
    perm = torch.tensor(order, dtype=torch.long, device=device)
    if state is None:
        states = torch.zeros(num_seqs, v_heads, head_v, head_k, dtype=torch.float32, device=device)
    else:
        states = state.float()[perm].clone()
    output = torch.zeros(total, v_heads, head_v, dtype=torch.float32, device=device)
    for i, n in enumerate(running):
        tok = starts[:n] + i
        kt = kf[tok]  # [n, HV, K]
        decayed = states[:n] * g[tok][..., None, None]
        recalled = torch.einsum("nhvk,nhk->nhv", decayed, kt)
        correction = beta[tok][..., None] * (vf[tok] - recalled)
        updated = decayed + correction[..., :, None] * kt[..., None, :]
        states[:n] = updated
        output[tok] = scale * torch.einsum("nhvk,nhk->nhv", updated, qf[tok])
    new_state = torch.zeros(num_seqs, v_heads, head_v, head_k, dtype=torch.float32, device=device)
    new_state[perm] = states
    empty = [s for s in range(num_seqs) if lengths[s] == 0]
    if empty:
        new_state[torch.tensor(empty, dtype=torch.long, device=device)] = 0  # as the reference leaves them
    return output.to(torch.bfloat16), new_state
