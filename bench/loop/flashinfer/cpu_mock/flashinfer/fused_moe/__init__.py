import torch


def cutlass_fused_moe(input, token_selected_experts, token_final_scales, fc1_expert_weights, fc2_expert_weights,
                      output_dtype, quant_scales, fc1_expert_biases=None, fc2_expert_biases=None, input_sf=None,
                      swiglu_alpha=None, swiglu_beta=None, swiglu_limit=None, tp_size=1, tp_rank=0, ep_size=1,
                      ep_rank=0, cluster_size=1, cluster_rank=0, output=None, enable_alltoall=False,
                      use_deepseek_fp8_block_scale=False, **kw):
    assert use_deepseek_fp8_block_scale and input.dtype == torch.bfloat16
    assert token_selected_experts.dtype == torch.int32 and token_final_scales.dtype == torch.float32
    E = fc1_expert_weights.shape[0]
    assert (token_selected_experts >= 0).all() and (token_selected_experts < E * ep_size).all()
    start = E * ep_rank
    w1s, w2s = quant_scales
    B = 128
    deq = lambda w, s: w.float() * s.repeat_interleave(B, -2).repeat_interleave(B, -1)
    I = fc2_expert_weights.shape[2]
    acc = torch.zeros(input.shape[0], fc2_expert_weights.shape[1])
    x = input.float()
    for t in range(input.shape[0]):
        for j in range(token_selected_experts.shape[1]):
            e = int(token_selected_experts[t, j]) - start
            if 0 <= e < E:
                g1 = x[t] @ deq(fc1_expert_weights[e], w1s[e]).T
                c = torch.nn.functional.silu(g1[I:]) * g1[:I]
                acc[t] += token_final_scales[t, j] * (c @ deq(fc2_expert_weights[e], w2s[e]).T)
    output.copy_(acc.to(output_dtype))
    return [output]
