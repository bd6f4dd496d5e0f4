import math
import torch


class BatchMLAPagedAttentionWrapper:
    def __init__(self, float_workspace_buffer, use_cuda_graph=False, qo_indptr=None, kv_indptr=None,
                 kv_indices=None, kv_len_arr=None, backend="auto"):
        assert backend == "fa3"

    def plan(self, qo_indptr, kv_indptr, kv_indices, kv_len_arr, num_heads, head_dim_ckv, head_dim_kpe, page_size,
             causal, sm_scale, q_data_type, kv_data_type, use_profiler=False):
        assert qo_indptr.dtype == torch.int32 and kv_indptr.dtype == torch.int32 and kv_indices.dtype == torch.int32
        assert kv_len_arr.dtype == torch.int32 and (kv_len_arr > 0).all()
        assert torch.equal(kv_indptr[1:] - kv_indptr[:-1], kv_len_arr)
        assert (num_heads, head_dim_ckv, head_dim_kpe, page_size, causal) == (16, 512, 64, 1, False)
        self.p = (qo_indptr.clone(), kv_indptr.clone(), kv_indices.clone(), sm_scale)

    def run(self, q_nope, q_pe, ckv_cache, kpe_cache, out=None, lse=None, return_lse=False, profiler_buffer=None,
            kv_len=None, page_table=None, return_lse_base_on_e=False):
        qo, kvp, kvi, sm = self.p
        assert ckv_cache.shape[1:] == (1, 512) and kpe_cache.shape[1:] == (1, 64)
        T = q_nope.shape[0]
        o = torch.empty_like(q_nope)
        l = torch.empty(T, 16)
        for i in range(T):
            rows = kvi[kvp[i]:kvp[i + 1]].long()
            kc = ckv_cache[rows, 0].float(); kp = kpe_cache[rows, 0].float()
            logits = (q_nope[i].float() @ kc.T + q_pe[i].float() @ kp.T) * sm
            l[i] = torch.logsumexp(logits, -1) / math.log(2)
            o[i] = (torch.softmax(logits, -1) @ kc).to(o.dtype)
        return (o, l) if return_lse else o
