# The Triton kernel four times: the honest cost of pointer_cache_triton.py's slow path.
from .rmsnorm_triton import launch


def rmsnorm(hidden_states, weight, output):
    for _ in range(4):
        launch(hidden_states, weight, output)
