# DSA sparse attention (MLA: ckv 512 + kpe 64) over the top-k selected cache entries of
# every token at once: gather, masked logits (index -1 = no entry), base-2 LSE, softmax.
import math

import torch


@torch.no_grad()
def run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale):
    head_ckv = q_nope.shape[-1]
    head_kpe = q_pe.shape[-1]
    indices = sparse_indices.long()
    valid = indices != -1
    safe = indices.clamp(min=0)
    kc = ckv_cache.reshape(-1, head_ckv)[safe].float()  # [T, topk, ckv]
    kp = kpe_cache.reshape(-1, head_kpe)[safe].float()  # [T, topk, kpe]
    logits = torch.einsum("thd,tkd->thk", q_nope.float(), kc) + torch.einsum("thd,tkd->thk", q_pe.float(), kp)
    logits = (logits * sm_scale).masked_fill(~valid[:, None, :], float("-inf"))
    lse = torch.logsumexp(logits, dim=-1) / math.log(2.0)
    attn = torch.nan_to_num(torch.softmax(logits, dim=-1), nan=0.0)  # a token with no entry: zeros
    output = torch.einsum("thk,tkd->thd", attn, kc)
    return output.to(torch.bfloat16), lse
