# dsa_topk_indexer_fp8_h64_d128_topk2048_ps64, a COMPOSITE on FlashInfer 0.6.4: FlashInfer
# has no fp8 paged MQA-logits scorer (no deep_gemm fp8_paged_mqa_logits counterpart in
# 0.6.4), so the scores are computed in PyTorch and the selection is FlashInfer's
# flashinfer.top_k_page_table_transform (radix / filtered top-k, JIT module "topk"), which
# also maps each selected position through a token-level page table (page * 64 + offset)
# and writes -1 past min(2048, seq_len).
# Scores, all float32 (plain fp32 GEMMs, no TF32): q.k on the fp8 codes (exact in fp32),
# times the key's per-token scale, ReLU, then the head-weighted sum, as the reference does
# (the reference multiplies the scale into k first: the same up to float32 rounding).
import torch

from flashinfer import top_k_page_table_transform

TOPK = 2048
PAGE = 64
DIM = 128


@torch.no_grad()
def run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table):
    batch, heads, dim = q_index_fp8.shape
    num_pages = k_index_cache_fp8.shape[0]
    max_pages = block_table.shape[1]
    device = q_index_fp8.device
    seq_lens = seq_lens.to(torch.int32).contiguous()
    # Only the first ceil(seq_len / 64) block-table entries are meaningful: point the rest
    # at page 0 (their positions are past seq_len, which the top-k never selects).
    used = torch.arange(max_pages, device=device)[None, :] < ((seq_lens.long() + PAGE - 1) // PAGE)[:, None]
    pages = torch.where(used, block_table.long(), 0).clamp_(0, max(num_pages - 1, 0))  # [B, P]
    raw = k_index_cache_fp8.view(torch.uint8).reshape(num_pages, PAGE * (DIM + 4))[pages]  # [B, P, 8448]
    codes = raw[..., : PAGE * DIM].contiguous().view(torch.float8_e4m3fn).view(batch, max_pages * PAGE, DIM)
    scales = raw[..., PAGE * DIM:].contiguous().view(torch.float32).view(batch, 1, max_pages * PAGE)
    dots = torch.bmm(q_index_fp8.float(), codes.float().transpose(1, 2))  # [B, 64, L]
    logits = torch.relu_(dots.mul_(scales))
    scores = torch.bmm(weights.float()[:, None, :], logits).view(batch, -1).contiguous()  # [B, L]
    # Token-level page table: position i of request b -> page * 64 + offset.
    table = (pages.to(torch.int32)[:, :, None] * PAGE
             + torch.arange(PAGE, dtype=torch.int32, device=device)[None, None, :]).reshape(batch, -1).contiguous()
    return top_k_page_table_transform(scores, table, seq_lens, TOPK)
