# Does the work with torch on a stream of its own and returns without joining the
# harness's stream: a timer that watches only the harness's stream sees nothing. Its
# side stream also holds a kernel of known length (420,000 SM cycles: at least 212 us at
# the H200's 1,980 MHz top clock), so a timer that sees the side stream can be told
# from one that does not without comparing two launch-bound torch solutions, whose
# host-side gaps differ from run to run.
import torch

from .rmsnorm_common import rmsnorm as _rmsnorm

_side = []
SLEEP_CYCLES = 420_000


def rmsnorm(hidden_states, weight, output):
    if not _side:
        _side.append(torch.cuda.Stream())
    with torch.cuda.stream(_side[0]):
        torch.cuda._sleep(SLEEP_CYCLES)
        output.copy_(_rmsnorm(hidden_states, weight))
