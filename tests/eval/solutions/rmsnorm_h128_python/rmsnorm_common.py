# Shared by the gallery: rmsnorm over the last axis in float32, rounded to bfloat16, as
# the definition's reference computes it. Imported relatively, as upstream stages
# sources as a package.
import torch

EPS = 1e-5


def rmsnorm(hidden_states, weight):
    x = hidden_states.float()
    inv_rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + EPS)
    return (x * inv_rms * weight.float()).to(torch.bfloat16)
