# moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 on FlashInfer 0.6.4:
# routing in PyTorch (the definition's DeepSeek-V3 no-aux grouped top-8, float32), then
# flashinfer.fused_moe.cutlass_fused_moe(use_deepseek_fp8_block_scale=True): the SM90
# CUTLASS/TensorRT-LLM fused MoE with 128x128 block-scaled fp8 weights (JIT module
# "fused_moe_90", gen_cutlass_fused_moe_sm90_module; cutlass_fused_moe() always builds it
# with use_fast_build=False, and FAST_BUILD would only prune the tactic heuristics anyway).
# Read from the 0.6.4 sources:
# - The block-scale runner is CutlassMoeFCRunner<bf16, fp8>: the activations go in as
#   bf16 and are quantised in the kernel (1x128 per token), so the fp8 codes and their
#   [56, T] scales are dequantised to bf16 here first (one bf16 rounding, then the kernel's
#   requantisation: both far inside the contest tolerance).
# - Weights: fc1 [E, 2I, H], fc2 [E, H, I] fp8, scales [E, 2I/128, H/128] and
#   [E, H/128, I/128] float32: the definition's layouts as they are.
# - SwiGLU: the kernel computes silu(fc1[:, I:2I]) * fc1[:, 0:I] (GLUAdaptor: the gate is the
#   second half, the linear part the first): the definition's X1 = rows [0, I), SiLU on X2.
# - Expert parallelism: ep_size 8, ep_rank 0, experts given in rank-0 numbering: a global
#   expert local_expert_offset + l becomes l (0..31), any other becomes 255 (rank 7's,
#   skipped by the kernel). Works for any offset, a multiple of 32 or not.
# - token_final_scales: the normalised sigmoid scores of the 8 picks times the routed
#   scaling factor; the kernel sums weight * expert output over the token's local picks and
#   writes bf16 (zero rows for tokens with no local pick).
import torch

from flashinfer.fused_moe import cutlass_fused_moe

BLOCK = 128
TOP_K = 8
GROUPS = 8
TOP_GROUPS = 4


def _route(routing_logits, routing_bias, routed_scaling_factor):
    tokens, experts = routing_logits.shape
    s = torch.sigmoid(routing_logits.float())
    biased = s + routing_bias.float()
    group_score = biased.view(tokens, GROUPS, experts // GROUPS).topk(2, dim=2).values.sum(dim=2)
    kept = torch.zeros_like(group_score).scatter_(1, group_score.topk(TOP_GROUPS, dim=1).indices, 1.0)
    allowed = kept.repeat_interleave(experts // GROUPS, dim=1) > 0
    top = biased.masked_fill(~allowed, float("-inf")).topk(TOP_K, dim=1).indices  # [T, 8]
    picked = s.gather(1, top)
    weights = picked / (picked.sum(dim=1, keepdim=True) + 1e-20) * routed_scaling_factor
    return top, weights.float()


@torch.no_grad()
def run(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor):
    tokens, hidden = hidden_states.shape
    local = gemm1_weights.shape[0]
    offset = int(local_expert_offset)
    top, weights = _route(routing_logits, routing_bias, float(routed_scaling_factor))
    ids = top - offset
    ids = torch.where((ids >= 0) & (ids < local), ids, torch.full_like(ids, 8 * local - 1)).to(torch.int32)
    x = (hidden_states.float().view(tokens, hidden // BLOCK, BLOCK)
         * hidden_states_scale.float().t()[:, :, None]).view(tokens, hidden).to(torch.bfloat16)
    output = torch.empty(tokens, hidden, dtype=torch.bfloat16, device=hidden_states.device)
    cutlass_fused_moe(
        x.contiguous(),
        ids.contiguous(),
        weights.contiguous(),
        gemm1_weights.contiguous(),
        gemm2_weights.contiguous(),
        torch.bfloat16,
        quant_scales=[gemm1_weights_scale.float().contiguous(), gemm2_weights_scale.float().contiguous()],
        ep_size=8,
        ep_rank=0,
        output=output,
        use_deepseek_fp8_block_scale=True,
    )
    return output
