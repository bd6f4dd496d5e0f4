# Returns one row too many: INCORRECT_SHAPE.
import torch

from .rmsnorm_common import rmsnorm as _rmsnorm


def rmsnorm(hidden_states, weight):
    y = _rmsnorm(hidden_states, weight)
    return torch.cat([y, y[:1]])
