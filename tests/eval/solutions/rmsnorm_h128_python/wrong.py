# Forgets the weight: INCORRECT_NUMERICAL.
import torch

from .rmsnorm_common import EPS


def rmsnorm(hidden_states, weight):
    x = hidden_states.float()
    return (x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + EPS)).to(torch.bfloat16)
