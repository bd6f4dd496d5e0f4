# Copies the inputs to the host, computes there and writes the output back from the
# host. Legal but slow: its latency must include the copies and the host work between.
from .rmsnorm_common import rmsnorm as _rmsnorm


def rmsnorm(hidden_states, weight, output):
    y = _rmsnorm(hidden_states.cpu(), weight.cpu())
    output.copy_(y)
