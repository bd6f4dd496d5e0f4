# Correct, with sixteen times the work: must be measured slower than correct.py. Sixteen,
# not two or four: on the CPU a call of this small operator is mostly the fixed cost of a
# Python call with its tensors, which a few times the work barely moves.
from .rmsnorm_common import rmsnorm as _rmsnorm


def rmsnorm(hidden_states, weight):
    for _ in range(15):
        _rmsnorm(hidden_states, weight)
    return _rmsnorm(hidden_states, weight)
