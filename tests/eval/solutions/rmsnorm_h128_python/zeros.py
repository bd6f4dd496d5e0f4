import torch


def rmsnorm(hidden_states, weight):
    return torch.zeros_like(hidden_states)
