# Gated delta net decode, one token per sequence, with every (batch, head) pair at once:
# the state stays in its k-last [B, H, V, K] layout and the delta-rule update is one
# outer product, new = g*S + (beta * (v - (g*S) k)) k^T, instead of a loop over pairs.
import math

import torch
import torch.nn.functional as F


@torch.no_grad()
def run(q, k, v, state, A_log, a, dt_bias, b, scale):
    batch, _, q_heads, head_k = q.shape
    v_heads, head_v = v.shape[2], v.shape[3]
    if scale is None or scale == 0.0:
        scale = 1.0 / math.sqrt(head_k)
    g = torch.exp(-torch.exp(A_log.float()) * F.softplus(a[:, 0].float() + dt_bias.float()))  # [B, HV]
    beta = torch.sigmoid(b[:, 0].float())  # [B, HV]
    qf = q[:, 0].float().repeat_interleave(v_heads // q_heads, dim=1)  # [B, HV, K]
    kf = k[:, 0].float().repeat_interleave(v_heads // k.shape[2], dim=1)
    vf = v[:, 0].float()  # [B, HV, V]
    if state is None:
        state = torch.zeros(batch, v_heads, head_v, head_k, dtype=torch.float32, device=q.device)
    decayed = state.float() * g[..., None, None]  # [B, HV, V, K]
    recalled = torch.einsum("bhvk,bhk->bhv", decayed, kf)
    correction = beta[..., None] * (vf - recalled)  # [B, HV, V]
    new_state = decayed + correction[..., :, None] * kf[..., None, :]
    output = scale * torch.einsum("bhvk,bhk->bhv", new_state, qf)
    return output.unsqueeze(1).to(torch.bfloat16), new_state
