# DeepSeek-V3 MoE with fp8 block-scale weights: no-aux grouped routing (8 groups, top-4
# groups by their top-2 sum, top-8 experts), then per local expert that any token chose:
# dequantize only that expert's weights (128x128 blocks), GEMM1 -> SwiGLU -> GEMM2 in
# float32, weighted accumulation. Unchosen experts cost nothing.
import torch

BLOCK = 128
TOP_K = 8
GROUPS = 8
TOP_GROUPS = 4
INTERMEDIATE = 2048


def _dequantize(weights, scales):
    expanded = scales.float().repeat_interleave(BLOCK, dim=0).repeat_interleave(BLOCK, dim=1)
    return weights.float() * expanded


@torch.no_grad()
def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor):
    tokens, experts = routing_logits.shape
    local = gemm1_weights.shape[0]
    hidden = hidden_states.shape[1]
    logits = routing_logits.float()
    s = 1.0 / (1.0 + torch.exp(-logits))
    biased = s + routing_bias.float().reshape(-1)
    group_scores = torch.topk(biased.view(tokens, GROUPS, experts // GROUPS), k=2, dim=2).values.sum(dim=2)
    kept_groups = torch.topk(group_scores, k=TOP_GROUPS, dim=1, sorted=False).indices
    group_mask = torch.zeros_like(group_scores).scatter_(1, kept_groups, 1.0)
    expert_mask = group_mask.unsqueeze(2).expand(tokens, GROUPS, experts // GROUPS).reshape(tokens, experts)
    pruned = biased.masked_fill(expert_mask == 0, torch.finfo(torch.float32).min)
    chosen = torch.topk(pruned, k=TOP_K, dim=1, sorted=False).indices  # [T, 8]
    picked = s.gather(1, chosen)
    picked = picked / (picked.sum(dim=1, keepdim=True) + 1e-20) * routed_scaling_factor

    scale = hidden_states_scale.float().t().repeat_interleave(BLOCK, dim=1)  # [T, H]
    activations = hidden_states.float() * scale
    output = torch.zeros(tokens, hidden, dtype=torch.float32, device=hidden_states.device)
    first = int(local_expert_offset)
    used = torch.unique(chosen).tolist()
    for expert in used:
        le = expert - first
        if le < 0 or le >= local:
            continue
        hit = chosen == expert  # [T, 8]
        rows = hit.any(dim=1).nonzero().squeeze(1)
        gate_up = activations[rows] @ _dequantize(gemm1_weights[le], gemm1_weights_scale[le]).t()
        up, gate = gate_up[:, :INTERMEDIATE], gate_up[:, INTERMEDIATE:]
        mixed = up * (gate / (1.0 + torch.exp(-gate)))
        down = mixed @ _dequantize(gemm2_weights[le], gemm2_weights_scale[le]).t()
        weight = (picked * hit).sum(dim=1)[rows]
        output.index_add_(0, rows, down * weight[:, None])
    return output.to(torch.bfloat16)
