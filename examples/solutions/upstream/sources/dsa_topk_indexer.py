# DSA top-k indexer: fp8 queries against a paged fp8 key cache whose per-token scales
# sit after each page's values (deep_gemm layout), ReLU, head-weighted sum, top-2048
# tokens per sequence as global cache positions (page * 64 + offset), -1 padded.
import torch

TOPK = 2048


def _dequantize_pages(cache, pages):
    raw = cache.view(torch.uint8)[pages]  # [P, page, 1, 132]
    count, page_size, _, width = raw.shape
    dim = width - 4
    flat = raw.reshape(count, page_size * width)
    values = flat[:, :page_size * dim].contiguous().view(torch.float8_e4m3fn).float()
    scales = flat[:, page_size * dim:].contiguous().view(torch.float32)  # [P, page]
    return values.view(count, page_size, dim) * scales.view(count, page_size, 1)


@torch.no_grad()
def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table):
    batch = q_index_fp8.shape[0]
    page_size = k_index_cache_fp8.shape[1]
    q = q_index_fp8.float()  # [B, heads, dim]
    result = torch.full((batch, TOPK), -1, dtype=torch.int32, device=q.device)
    for b, length in enumerate(seq_lens.tolist()):
        if length <= 0:
            continue
        pages = block_table[b, :(length + page_size - 1) // page_size].long()
        keys = _dequantize_pages(k_index_cache_fp8, pages).reshape(-1, q.shape[-1])[:length]
        scores = (torch.relu(q[b] @ keys.T) * weights[b][:, None]).sum(dim=0)  # [length]
        count = min(TOPK, length)
        best = torch.topk(scores, count).indices
        result[b, :count] = (pages[best // page_size] * page_size + best % page_size).to(torch.int32)
    return result
