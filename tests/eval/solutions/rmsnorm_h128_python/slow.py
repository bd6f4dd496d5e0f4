# Correct, with four times the work: must be measured slower than correct.py.
from .rmsnorm_common import rmsnorm as _rmsnorm


def rmsnorm(hidden_states, weight):
    for _ in range(3):
        _rmsnorm(hidden_states, weight)
    return _rmsnorm(hidden_states, weight)
