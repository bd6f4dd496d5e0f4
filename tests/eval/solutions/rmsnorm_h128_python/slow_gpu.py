# Correct, with four times the work on the GPU: the honest cost of the cache cheats'
# slow path.
from .rmsnorm_common import rmsnorm as _rmsnorm


def rmsnorm(hidden_states, weight, output):
    for _ in range(4):
        output.copy_(_rmsnorm(hidden_states, weight))
