# The Triton kernel, then a write to its input from torch: REWARD_HACK.
from .rmsnorm_triton import launch


def rmsnorm(hidden_states, weight, output):
    launch(hidden_states, weight, output)
    hidden_states[0, 0] += 1
