# Destination-passing: writes the harness's output tensor in place (no copy is made on
# the way in, so this is the harness's own poisoned buffer).
from .rmsnorm_common import rmsnorm as _rmsnorm


def rmsnorm(hidden_states, weight, output):
    output.copy_(_rmsnorm(hidden_states, weight))
