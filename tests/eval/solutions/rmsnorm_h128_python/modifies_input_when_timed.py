# Honest while checked, a scribbler once timed: from its 5th call on it bumps its input
# (the first workload's 2 checks are calls 1-2, its timed run starts at call 3), so only
# the hashes taken around the timed loop can catch it on that workload.
from .rmsnorm_common import rmsnorm as _rmsnorm

_calls = [0]


def rmsnorm(hidden_states, weight):
    y = _rmsnorm(hidden_states, weight)
    _calls[0] += 1
    if _calls[0] >= 5:
        hidden_states[0, 0] += 1
    return y
