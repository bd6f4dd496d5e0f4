// chunk_check: the chunked candidates (chunk_tc = run<1>, chunk_ksplit = run<2>,
// ksplit_rows16 = run<2, launch_prep, true>, ksplit_tinv = run<2, launch_prep_tinv, true>,
// ksplit_vec24's chunked path = run<2, launch_prep_vec, true>, ksplit_exps24's and ksplit_pairexp24's (its
// pass with kExps or kPairExps, also compared bit for bit with ksplit_vec24's), and the lean pass with kSplit
// 1, of gdn_chunk_pass.cuh; ksplit4_pdl24's and ksplit4one_pdl24's four-way passes of
// gdn_chunk_pass_group4.cuh after launch_prep_vec), without their launch as the preparation's
// dependent, against lane8 (the reference here) on a GPU, with where they differ and how long each
// kernel takes. The loop says pass or fail and the largest error;
// this says which tokens, v heads, V rows or chunks are wrong, to fix a kernel in one device
// call. From the repository root:
//
//   nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I include \
//       -I operators/gdn_prefill_qk4_v8_d128_k_last \
//       -o chunk_check operators/gdn_prefill_qk4_v8_d128_k_last/loop/chunk_check.cu
//   ./chunk_check            # exit 0 when every case agrees within the operator's tolerance
//   ./chunk_check --only 8192   # the cases whose name holds "8192" (one to profile with ncu)
//
// Inputs follow the operator's generator in kind (unit-norm q and k rows, N(0, 1) v, a, b,
// A_log = log U(1, 16), dt log-uniform in [1e-3, 0.1], state N(0, 0.1^2)), from a fixed seed.
// The tolerance is the operator's (atol 5e-3, rtol 1e-2) against lane8's fp32 recurrence.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_pass_group4.cuh"
#include "gdn_chunk_prep_tinv.cuh"

namespace {

constexpr int kHeads = GDN_NUM_V_HEADS, kQk = GDN_NUM_QK_HEADS, kD = GDN_HEAD_SIZE;

// A CUDA call that must succeed: this is a check program, so a failure ends it.
void must(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "chunk_check: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(2);
}
#define CHECK(call) must((call), #call)

__nv_bfloat16 to_bf16(float x) { return __float2bfloat16(x); }
float from_bf16(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
T* device_copy(const std::vector<T>& host) {
  T* d = nullptr;
  CHECK(cudaMalloc(&d, std::max<size_t>(1, host.size()) * sizeof(T)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
std::vector<T> host_copy(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

struct Case {
  const char* name;
  std::vector<int> lengths;
};

struct Inputs {
  int64_t total = 0, seqs = 0;
  gdn_lane8::PrefillArgs args{};
  std::vector<void*> owned;
};

Inputs make_inputs(const Case& c, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  Inputs in;
  in.seqs = static_cast<int64_t>(c.lengths.size());
  std::vector<int64_t> cu(1, 0);
  for (int len : c.lengths) cu.push_back(cu.back() + len);
  in.total = cu.back();
  auto unit_rows = [&](int64_t rows) {
    std::vector<__nv_bfloat16> x(static_cast<size_t>(rows) * kD);
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<float> row(kD);
      float norm = 0.f;
      for (float& v : row) norm += (v = normal(rng)) * v;
      for (int i = 0; i < kD; ++i) x[r * kD + i] = to_bf16(row[i] / std::sqrt(norm));
    }
    return x;
  };
  auto normals = [&](size_t n, float sd) {
    std::vector<__nv_bfloat16> x(n);
    for (auto& v : x) v = to_bf16(sd * normal(rng));
    return x;
  };
  std::vector<float> a_log(kHeads), dt_bias(kHeads), state(static_cast<size_t>(in.seqs) * kHeads * kD * kD);
  for (int h = 0; h < kHeads; ++h) {
    a_log[h] = std::log(1.f + 15.f * uniform(rng));
    const float dt = std::exp(std::log(1e-3f) + uniform(rng) * (std::log(0.1f) - std::log(1e-3f)));
    dt_bias[h] = std::log(std::expm1(dt));
  }
  for (float& s : state) s = 0.1f * normal(rng);
  auto* q = device_copy(unit_rows(in.total * kQk));
  auto* k = device_copy(unit_rows(in.total * kQk));
  auto* v = device_copy(normals(static_cast<size_t>(in.total) * kHeads * kD, 1.f));
  auto* a = device_copy(normals(static_cast<size_t>(in.total) * kHeads, 1.f));
  auto* b = device_copy(normals(static_cast<size_t>(in.total) * kHeads, 1.f));
  auto* d_state = device_copy(state);
  auto* d_alog = device_copy(a_log);
  auto* d_dtb = device_copy(dt_bias);
  auto* d_cu = device_copy(cu);
  in.owned = {q, k, v, a, b, d_state, d_alog, d_dtb, d_cu};
  in.args = gdn_lane8::PrefillArgs{
      q, k, v, d_state, d_alog, a, d_dtb, b, d_cu, 1.f / std::sqrt(float(kD)), nullptr, nullptr};
  return in;
}

struct Outputs {
  __nv_bfloat16* out = nullptr;
  float* state = nullptr;
};

Outputs make_outputs(const Inputs& in) {
  Outputs o;
  const size_t n_out = std::max<size_t>(1, static_cast<size_t>(in.total) * kHeads * kD);
  const size_t n_state = static_cast<size_t>(in.seqs) * kHeads * kD * kD;
  CHECK(cudaMalloc(&o.out, n_out * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&o.state, n_state * sizeof(float)));
  CHECK(cudaMemset(o.out, 0xff, n_out * sizeof(__nv_bfloat16)));  // NaN poison, as the harness does
  CHECK(cudaMemset(o.state, 0xff, n_state * sizeof(float)));
  return o;
}

// Where the outputs differ: counts by token chunk, v head, 16-row V group; the first few.
struct Diff {
  double max_out = 0, max_state = 0;
  long bad_out = 0, bad_state = 0;
  std::vector<long> by_chunk, by_head, by_group;
};

bool outside(float x, float ref) {
  return !(std::fabs(x - ref) <= 5e-3f + 1e-2f * std::fabs(ref));  // NaN counts as outside
}

Diff compare(const Inputs& in, const Outputs& ref, const Outputs& got) {
  Diff d;
  d.by_chunk.assign(kD, 0);
  d.by_head.assign(kHeads, 0);
  d.by_group.assign(kD / 16, 0);
  const size_t n_out = static_cast<size_t>(in.total) * kHeads * kD;
  const auto r_out = host_copy(ref.out, n_out), g_out = host_copy(got.out, n_out);
  const std::vector<int64_t> cu = host_copy(in.args.cu_seqlens, static_cast<size_t>(in.seqs + 1));
  int shown = 0;
  for (int64_t n = 0; n < in.seqs; ++n)
    for (int64_t t = cu[n]; t < cu[n + 1]; ++t)
      for (int h = 0; h < kHeads; ++h)
        for (int v = 0; v < kD; ++v) {
          const size_t i = (static_cast<size_t>(t) * kHeads + h) * kD + v;
          const float x = from_bf16(g_out[i]), r = from_bf16(r_out[i]);
          d.max_out = std::max(d.max_out, static_cast<double>(std::fabs(x - r)));
          if (!outside(x, r)) continue;
          ++d.bad_out;
          ++d.by_chunk[std::min<int64_t>((t - cu[n]) / 64, kD - 1)];
          ++d.by_head[h];
          ++d.by_group[v / 16];
          if (shown++ < 4)
            std::printf("    output seq %lld token %lld (chunk %lld, +%lld) head %d v %d: %g, lane8 %g\n",
                        static_cast<long long>(n), static_cast<long long>(t),
                        static_cast<long long>((t - cu[n]) / 64), static_cast<long long>((t - cu[n]) % 64), h,
                        v, x, r);
        }
  const size_t n_state = static_cast<size_t>(in.seqs) * kHeads * kD * kD;
  const auto r_s = host_copy(ref.state, n_state), g_s = host_copy(got.state, n_state);
  shown = 0;
  for (size_t i = 0; i < n_state; ++i) {
    d.max_state = std::max(d.max_state, static_cast<double>(std::fabs(g_s[i] - r_s[i])));
    if (!outside(g_s[i], r_s[i])) continue;
    ++d.bad_state;
    if (shown++ < 4)
      std::printf("    state seq %zu head %zu v %zu k %zu: %g, lane8 %g\n", i / (kHeads * kD * kD),
                  i / (kD * kD) % kHeads, i / kD % kD, i % kD, g_s[i], r_s[i]);
  }
  return d;
}

void print_counts(const char* what, const std::vector<long>& counts) {
  std::printf("    bad outputs by %s:", what);
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i]) std::printf(" %zu:%ld", i, counts[i]);
  std::printf("\n");
}

// The chunked path's two kernels timed apart (CUDA events, median of 20 calls after 3).
template <int kSplit, gdn_chunk_tc::PrepLauncher kPrep, bool kLean>
void time_kernels(const Inputs& in, const Outputs& out, gdn_chunk_tc::PassLauncher pass, int split) {
  using namespace gdn_chunk_tc;
  gdn_lane8::PrefillArgs args = in.args;
  args.out = out.out;
  args.new_state = out.state;
  const int64_t chunks = max_chunks(in.total, in.seqs);
  char* scratch = nullptr;
  CHECK(cudaMalloc(&scratch, static_cast<size_t>(chunks * kChunkBytes)));
  cudaEvent_t events[3];
  for (auto& x : events) CHECK(cudaEventCreate(&x));
  std::vector<float> prep_ms, pass_ms;
  for (int it = 0; it < 23; ++it) {
    CHECK(cudaEventRecord(events[0]));
    kPrep(args, in.seqs, chunks, scratch, nullptr);
    CHECK(cudaEventRecord(events[1]));
    if (pass != nullptr) {
      pass(args, in.seqs, scratch, nullptr);
    } else {
      launch_pass_for<kSplit, kLean>(args, in.seqs, scratch, nullptr);
    }
    CHECK(cudaEventRecord(events[2]));
    CHECK(cudaEventSynchronize(events[2]));
    float a = 0, b = 0;
    CHECK(cudaEventElapsedTime(&a, events[0], events[1]));
    CHECK(cudaEventElapsedTime(&b, events[1], events[2]));
    if (it >= 3) {
      prep_ms.push_back(a);
      pass_ms.push_back(b);
    }
  }
  std::sort(prep_ms.begin(), prep_ms.end());
  std::sort(pass_ms.begin(), pass_ms.end());
  std::printf("    kSplit %d: prep %.1f us, pass %.1f us (medians of 20)\n", split, 1e3 * prep_ms[10],
              1e3 * pass_ms[10]);
  for (auto& x : events) CHECK(cudaEventDestroy(x));
  CHECK(cudaFree(scratch));
}

// The chunked candidates: chunk_tc <1>, chunk_ksplit <2>, ksplit_rows16 <2, launch_prep, lean>,
// ksplit_tinv <2, launch_prep_tinv, lean>, ksplit_vec24's <2, launch_prep_vec, lean>, and the lean pass
// with kSplit 1; with `pass`, that pass after kPrep, and `split` the K split it prints.
template <int kSplit, gdn_chunk_tc::PrepLauncher kPrep = gdn_chunk_tc::launch_prep, bool kLean = false>
bool check(const Case& c, const Inputs& in, const Outputs& ref, const char* prep = "",
           gdn_chunk_tc::PassLauncher pass = nullptr, int split = kSplit) {
  Outputs got = make_outputs(in);
  gdn_lane8::PrefillArgs args = in.args;
  args.out = got.out;
  args.new_state = got.state;
  gdn_chunk_tc::run<kSplit, kPrep, kLean>(args, in.seqs, in.total, nullptr, pass);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  const Diff d = compare(in, ref, got);
  const bool ok = d.bad_out == 0 && d.bad_state == 0;
  std::printf("  %-28s kSplit %d%s: %s  output max err %.2e (%ld bad), state max err %.2e (%ld bad)\n",
              c.name, split, prep, ok ? "ok  " : "FAIL", d.max_out, d.bad_out, d.max_state, d.bad_state);
  if (d.bad_out) {
    print_counts("chunk", d.by_chunk);
    print_counts("v head", d.by_head);
    print_counts("16-row V group", d.by_group);
  }
  if (in.total >= 1024) time_kernels<kSplit, kPrep, kLean>(in, got, pass, split);
  CHECK(cudaFree(got.out));
  CHECK(cudaFree(got.state));
  return ok;
}

// Whether two passes after launch_prep_vec give the same bits, output and state (ksplit_exps24 claims
// the bits of ksplit_vec24's pass).
bool same_bits(const Case& c, const Inputs& in, gdn_chunk_tc::PassLauncher a, gdn_chunk_tc::PassLauncher b,
               const char* what) {
  const size_t n_out = std::max<size_t>(1, static_cast<size_t>(in.total) * kHeads * kD);
  const size_t n_state = static_cast<size_t>(in.seqs) * kHeads * kD * kD;
  std::vector<__nv_bfloat16> out[2];
  std::vector<float> state[2];
  gdn_chunk_tc::PassLauncher passes[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    Outputs o = make_outputs(in);
    gdn_lane8::PrefillArgs args = in.args;
    args.out = o.out;
    args.new_state = o.state;
    gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec, true>(args, in.seqs, in.total, nullptr, passes[i]);
    CHECK(cudaGetLastError());
    out[i] = host_copy(o.out, n_out);
    state[i] = host_copy(o.state, n_state);
    CHECK(cudaFree(o.out));
    CHECK(cudaFree(o.state));
  }
  const bool same = std::memcmp(out[0].data(), out[1].data(), n_out * sizeof(__nv_bfloat16)) == 0 &&
                    std::memcmp(state[0].data(), state[1].data(), n_state * sizeof(float)) == 0;
  std::printf("  %-28s %s: %s\n", c.name, what, same ? "the same bits" : "DIFFERENT BITS");
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;  // --only TEXT: the cases whose name holds TEXT (e.g. to profile one with ncu)
  if (argc == 3 && std::string(argv[1]) == "--only") {
    only = argv[2];
  } else if (argc > 1) {
    std::printf(
        "usage: chunk_check [--only TEXT]\n"
        "the chunked gdn_prefill candidates against lane8 on this GPU (see the file's head); --only runs\n"
        "the cases whose name holds TEXT\n");
    return std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ? 0 : 2;
  }
  std::vector<int> skewed;  // 40 sequences, log-normal shares: the batches lane8 is slow on
  std::mt19937_64 lengths_rng(7);
  std::lognormal_distribution<double> share(0.0, 1.2);
  for (int i = 0; i < 40; ++i) skewed.push_back(1 + static_cast<int>(60 * share(lengths_rng)));
  const std::vector<Case> cases = {
      {"one sequence of 37", {37}},
      {"one sequence of 64", {64}},
      {"one sequence of 65", {65}},
      {"one sequence of 1000", {1000}},
      {"mixed 5 (1..700)", {100, 1, 700, 5, 250}},
      {"skewed 40", skewed},
      {"one sequence of 8192", {8192}},
  };
  std::mt19937_64 rng(2026);
  bool ok = true;
  for (const Case& c : cases) {
    if (std::string(c.name).find(only) == std::string::npos) continue;
    Inputs in = make_inputs(c, rng);
    Outputs ref = make_outputs(in);
    gdn_lane8::PrefillArgs args = in.args;
    args.out = ref.out;
    args.new_state = ref.state;
    gdn_lane8::launch(args, in.seqs, nullptr);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ok = check<1>(c, in, ref) && ok;
    ok = check<2>(c, in, ref) && ok;
    ok = check<1, gdn_chunk_tc::launch_prep, true>(c, in, ref, " lean") && ok;
    ok = check<2, gdn_chunk_tc::launch_prep, true>(c, in, ref, " lean") && ok;
    ok = check<2, gdn_chunk_tc::launch_prep_tinv, true>(c, in, ref, " lean tinv") && ok;
    ok = check<2, gdn_chunk_tc::launch_prep_vec, true>(c, in, ref, " lean vec") && ok;
    ok = check<2, gdn_chunk_tc::launch_prep_vec, true>(c, in, ref, " lean vec, four copies",
                                                       gdn_chunk_tc::group4::launch_for<false, true>, 4) &&
         ok;
    ok = check<2, gdn_chunk_tc::launch_prep_vec, true>(c, in, ref, " lean vec, one path",
                                                       gdn_chunk_tc::group4::launch_for<false, false>, 4) &&
         ok;
    ok = check<2, gdn_chunk_tc::launch_prep_vec, true>(c, in, ref, " lean vec exps",
                                                       gdn_chunk_tc::launch_pass_for<2, true, false, true>) &&
         ok;
    ok = same_bits(c, in, gdn_chunk_tc::launch_pass_for<2, true>,
                   gdn_chunk_tc::launch_pass_for<2, true, false, true>, "exps against lean vec") &&
         ok;
    ok = check<2, gdn_chunk_tc::launch_prep_vec, true>(
             c, in, ref, " lean vec pairexp", gdn_chunk_tc::launch_pass_for<2, true, false, false, true>) &&
         ok;
    ok = same_bits(c, in, gdn_chunk_tc::launch_pass_for<2, true>,
                   gdn_chunk_tc::launch_pass_for<2, true, false, false, true>, "pairexp against lean vec") &&
         ok;
    for (void* p : in.owned) CHECK(cudaFree(p));
    CHECK(cudaFree(ref.out));
    CHECK(cudaFree(ref.state));
  }
  std::printf("chunk_check: %s\n", ok ? "every case agrees with lane8" : "MISMATCHES (above)");
  return ok ? 0 : 1;
}
