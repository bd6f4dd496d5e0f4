# sys.exit() inside the call is an exception like any other: RUNTIME_ERROR.
import sys


def rmsnorm(hidden_states, weight):
    sys.exit(0)
