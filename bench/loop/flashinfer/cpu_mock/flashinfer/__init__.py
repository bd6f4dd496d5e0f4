# CPU stand-ins for the FlashInfer 0.6.4 calls of ../*.py (not FlashInfer): see check.py.
# CPU mocks of the FlashInfer 0.6.4 entry points the solutions call (semantics as read from the sources).
import math
import torch
from . import gdn_prefill, mla, fused_moe  # noqa


def top_k_page_table_transform(input, src_page_table, lengths, k, row_to_batch=None):
    assert input.dtype == torch.float32 and input.is_contiguous() and input.dim() == 2
    assert src_page_table.dtype == torch.int32 and lengths.dtype == torch.int32
    rows = input.shape[0]
    out = torch.full((rows, k), -1, dtype=torch.int32)
    for i in range(rows):
        n = int(lengths[i])
        if n <= k:
            out[i, :n] = src_page_table[i, :n]
        else:
            idx = torch.topk(input[i, :n], k).indices
            out[i] = src_page_table[i, idx]
    return out
