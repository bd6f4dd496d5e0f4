# Copies the inputs to the host, computes there and writes the output back from the
# host. Legal but slow: its latency must include the copies and the host work between.
# The host step between the two copies lasts at least HOST_SECONDS, so a span that left
# it out is plainly short.
import time

from .rmsnorm_common import rmsnorm as _rmsnorm

HOST_SECONDS = 300e-6


def rmsnorm(hidden_states, weight, output):
    x, w = hidden_states.cpu(), weight.cpu()  # synchronous: these copies have ended here
    start = time.perf_counter()
    y = _rmsnorm(x, w)
    while time.perf_counter() - start < HOST_SECONDS:
        pass
    output.copy_(y)  # begins after the host step
