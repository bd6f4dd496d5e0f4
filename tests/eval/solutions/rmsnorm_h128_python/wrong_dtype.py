# Returns float32 where the definition says bfloat16: INCORRECT_DTYPE.
from .rmsnorm_common import rmsnorm as _rmsnorm


def rmsnorm(hidden_states, weight):
    return _rmsnorm(hidden_states, weight).float()
