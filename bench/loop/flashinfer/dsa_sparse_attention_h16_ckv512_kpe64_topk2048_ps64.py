# dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 on FlashInfer 0.6.4:
# flashinfer.mla.BatchMLAPagedAttentionWrapper, backend "fa3" (the SM90 warp-specialized
# MLA kernel, JIT module batch_mla_attention_..._ckv_512_dpe_64 with backend fa3), used as a
# sparse kernel: page size 1 over the flattened caches ([num_pages * 64, 1, 512] and
# [.., 1, 64], row = page * 64 + offset), one request per query token (qo_len 1, so the
# 16 heads are the packed rows), and the request's kv_indices = its valid sparse indices.
# - -1 entries (anywhere in a row) are dropped by compaction (a boolean mask select: one
#   host sync), and plan() needs the per-token counts on the host anyway (a second copy).
# - A token with no valid index gets one dummy row (row 0) so that no request has
#   kv_len 0, and its output / lse are then set to 0 / -inf as the definition says.
# - lse: the kernel writes log2(d) + m with m in log2 units (sm_scale * log2e), i.e. the
#   base-2 log-sum-exp of the sm_scale-scaled logits when return_lse_base_on_e is False:
#   the definition's convention.
# - plan() runs on every call (the index lists change); it is host work plus a copy.
import torch

import flashinfer

HEADS = 16
CKV = 512
KPE = 64
_WRAPPERS = {}


def _wrapper(device):
    w = _WRAPPERS.get(device)
    if w is None:
        workspace = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=device)
        w = flashinfer.mla.BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        _WRAPPERS[device] = w
    return w


@torch.no_grad()
def run(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale):
    device = q_nope.device
    tokens = q_nope.shape[0]
    idx = sparse_indices.to(torch.int32)
    valid = idx != -1
    empty = ~valid.any(dim=1)  # [T]
    first = torch.zeros_like(valid)
    first[:, 0] = True
    dummy = first & empty[:, None]
    idx = torch.where(dummy, torch.zeros_like(idx), idx)
    valid = valid | dummy
    kv_indices = idx[valid].contiguous()  # row-major: token by token
    counts = valid.sum(dim=1, dtype=torch.int32).cpu()
    kv_indptr = torch.zeros(tokens + 1, dtype=torch.int32)
    kv_indptr[1:] = torch.cumsum(counts, 0)
    qo_indptr = torch.arange(tokens + 1, dtype=torch.int32)
    w = _wrapper(device)
    w.plan(qo_indptr, kv_indptr, kv_indices, counts, HEADS, CKV, KPE, 1, False, float(sm_scale),
           q_nope.dtype, ckv_cache.dtype)
    ckv = ckv_cache.reshape(-1, 1, CKV)
    kpe = kpe_cache.reshape(-1, 1, KPE)
    out, lse = w.run(q_nope.contiguous(), q_pe.contiguous(), ckv, kpe, return_lse=True)
    out = torch.where(empty[:, None, None], torch.zeros((), dtype=out.dtype, device=device), out)
    lse = torch.where(empty[:, None], torch.full((), float("-inf"), device=device), lse)
    return out, lse
