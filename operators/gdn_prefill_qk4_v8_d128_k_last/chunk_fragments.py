#!/usr/bin/env python3
"""The warp-level indexing of gdn_chunk_pass.cuh and gdn_chunk_prep.cuh, transcribed to numpy
and checked against plain matrix products, for a machine without a GPU.

    python3 chunk_fragments.py        # exit 0 when every product matches

What it checks: the ldmatrix row addresses each lane gives (plain and .trans), the
m16n8k16 A/B/accumulator layouts (PTX ISA; the same conventions as the sparse attention
kernels that ran on the H200), the accumulator-to-A conversions of S^T and U^T, the token
tiles skipped under P's triangle, and with kSplit 2 and 4 the group's partial sums: one chunk of
one 16-row V group, for kSplit 1, 2 and 4, the prep's K K^T over its 8 warps, and
gdn_chunk_prep_tinv.cuh's blocked inverse of I + A and its [W | U^] = T R. What it cannot
check: anything of the CUDA code itself (addresses outside these formulas, barriers, cp.async
groups, the host call). When the formulas in the headers change, change them here too.
Needs numpy.
"""
import sys

try:
    import numpy as np
except ImportError:
    np = None

LANE = None  # per-lane coordinates, set in main()


def ldsm(m, rows, cols, trans=False):
    """ldmatrix.x4: lane l gives the address (rows[l], cols[l]) of row l % 8 of matrix l // 8;
    register i of lane l holds elements (l // 4, 2 (l % 4) .. +1) of matrix i (transposed
    first with .trans)."""
    g, tg = LANE["g"], LANE["tg"]
    out = np.zeros((4, 32, 2))
    for i in range(4):
        mat = np.stack([m[rows[8 * i + j], cols[8 * i + j]:cols[8 * i + j] + 8] for j in range(8)])
        if trans:
            mat = mat.T
        out[i, :, 0], out[i, :, 1] = mat[g, 2 * tg], mat[g, 2 * tg + 1]
    return out


def mma(d, a, b0, b1):
    """d += A B for m16n8k16: A from a[4][lane][2], B from b0, b1 [lane][2], d [lane][4]."""
    a_mat, b_mat = np.zeros((16, 16)), np.zeros((16, 8))
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        a_mat[g, 2 * t:2 * t + 2], a_mat[g + 8, 2 * t:2 * t + 2] = a[0][lane], a[1][lane]
        a_mat[g, 2 * t + 8:2 * t + 10], a_mat[g + 8, 2 * t + 8:2 * t + 10] = a[2][lane], a[3][lane]
        b_mat[2 * t:2 * t + 2, g], b_mat[2 * t + 8:2 * t + 10, g] = b0[lane], b1[lane]
    prod = a_mat @ b_mat
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        d[lane] += [prod[g, 2 * t], prod[g, 2 * t + 1], prod[g + 8, 2 * t], prod[g + 8, 2 * t + 1]]


def tiles(m, count, c0=0):
    """Accumulator tiles of rows 0..15, columns c0 + 8 nt .. (the layout of load_state)."""
    out = [np.zeros((32, 4)) for _ in range(count)]
    for nt in range(count):
        for lane in range(32):
            g, t = lane >> 2, lane & 3
            c = c0 + 8 * nt + 2 * t
            out[nt][lane] = [m[g, c], m[g, c + 1], m[g + 8, c], m[g + 8, c + 1]]
    return out


def matrix(acc):
    m = np.zeros((16, 8 * len(acc)))
    for nt, a in enumerate(acc):
        for lane in range(32):
            g, t = lane >> 2, lane & 3
            c = 8 * nt + 2 * t
            m[g, c], m[g, c + 1], m[g + 8, c], m[g + 8, c + 1] = a[lane]
    return m


def f16(x):
    return np.asarray(x).astype(np.float16).astype(np.float64)


def a_fragment(acc, ks):
    """Accumulator tiles 2ks, 2ks + 1 as the fp16 A fragment of k step ks (chunk_step's sa)."""
    a = np.zeros((4, 32, 2))
    a[0], a[1], a[2], a[3] = acc[2 * ks][:, 0:2], acc[2 * ks][:, 2:4], acc[2 * ks + 1][:, 0:2], acc[2 * ks + 1][:, 2:4]
    return f16(a)


def warp_products(d, part, k_split):
    """pass_products of the warp holding K part `part`."""
    mi, mr = LANE["mi"], LANE["mr"]
    steps = 8 // k_split
    k0 = 16 * steps * part
    s = tiles(d["St"], 16 // k_split, 8 * (16 // k_split) * part)
    sa = [a_fragment(s, ks) for ks in range(steps)]
    u = tiles(d["Uh"], 8) if part == 0 else [np.zeros((32, 4)) for _ in range(8)]
    o = [np.zeros((32, 4)) for _ in range(8)]
    for ks in range(steps):
        for pair in range(4):
            rows, cols = 8 * (mi >> 1) + mr + 16 * pair, 8 * (mi & 1) + k0 + 16 * ks
            bw, bq = ldsm(d["W"], rows, cols), ldsm(d["Q"], rows, cols)
            mma(u[2 * pair], -sa[ks], bw[0], bw[1])
            mma(u[2 * pair + 1], -sa[ks], bw[2], bw[3])
            mma(o[2 * pair], sa[ks], bq[0], bq[1])
            mma(o[2 * pair + 1], sa[ks], bq[2], bq[3])
    return s, u, o


def warp_finish(d, s, u, o, part, k_split):
    """pass_decays, pass_intra, pass_state of the warp holding K part `part`; returns its
    output columns (tokens) and its state columns (K)."""
    mi, mr, tg = LANE["mi"], LANE["mr"], LANE["tg"]
    lg = d["lg"]
    lg_end = lg[-1]
    ua = [np.zeros((4, 32, 2)) for _ in range(4)]
    ud = [np.zeros((4, 32, 2)) for _ in range(4)]
    for nt in range(8):
        t = 8 * nt + 2 * tg
        g0, g1 = np.exp(lg[t]), np.exp(lg[t + 1])
        d01 = np.stack([np.exp(lg_end - lg[t]), np.exp(lg_end - lg[t + 1])], 1)
        o[nt] *= np.stack([g0, g1, g0, g1], 1)
        ks, half = nt >> 1, 2 * (nt & 1)
        ua[ks][half], ua[ks][half + 1] = f16(u[nt][:, 0:2]), f16(u[nt][:, 2:4])
        ud[ks][half], ud[ks][half + 1] = f16(u[nt][:, 0:2] * d01), f16(u[nt][:, 2:4] * d01)
    pairs = 4 // k_split
    for ks in range(4):
        for i in range(pairs):
            pair = pairs * part + i
            if pair < ks:
                continue
            bp = ldsm(d["P"], 8 * (mi >> 1) + mr + 16 * pair, 8 * (mi & 1) + 16 * ks)
            mma(o[2 * pair], ua[ks], bp[0], bp[1])
            mma(o[2 * pair + 1], ua[ks], bp[2], bp[3])
    count = 16 // k_split
    for nt in range(count):
        s[nt] *= np.exp(lg_end)
    for ks in range(4):
        for pair in range(count // 2):
            bk = ldsm(d["K"], mr + 8 * (mi & 1) + 16 * ks, 8 * (mi >> 1) + 8 * count * part + 16 * pair, trans=True)
            mma(s[2 * pair], ud[ks], bk[0], bk[1])
            mma(s[2 * pair + 1], ud[ks], bk[2], bk[3])
    mine = range((8 // k_split) * part, (8 // k_split) * (part + 1))
    return matrix([o[nt] for nt in mine]), matrix(s)


def check_pass(d, k_split):
    """One chunk of one 16-row V group; returns the failures."""
    s16 = f16(d["St"])
    u_ref = d["Uh"] - s16 @ d["W"].T
    warps = [warp_products(d, part, k_split) for part in range(k_split)]
    failures = []
    if k_split > 1:  # pass_swap, before any warp goes on: every part's U, and their O over this warp's tokens,
        # added in part order 0, 1, ... (so that every warp holds the same U)
        tiles_a_part = 8 // k_split
        total_u = [sum(warps[j][1][nt] for j in range(k_split)) for nt in range(8)]
        warps = [(s, [t.copy() for t in total_u],
                  [sum(warps[j][2][nt] for j in range(k_split)) if nt // tiles_a_part == part else o[nt].copy()
                   for nt in range(8)])
                 for part, (s, u, o) in enumerate(warps)]
    for part, (s, u, o) in enumerate(warps):
        if not np.allclose(matrix(u), u_ref):
            failures.append(f"kSplit {k_split} part {part}: U")
        # O and S from the warp's own U (its fp32 sum order decides its fp16 roundings)
        u_warp = matrix(u)
        o_ref = np.exp(d["lg"])[None, :] * (s16 @ d["Q"].T) + f16(u_warp) @ d["P"].T
        s_ref = np.exp(d["lg"][-1]) * d["St"] + f16(u_warp * np.exp(d["lg"][-1] - d["lg"])[None, :]) @ d["K"]
        out, state = warp_finish(d, s, u, o, part, k_split)
        tokens, columns = 64 // k_split, 128 // k_split
        if not np.allclose(out, o_ref[:, tokens * part:tokens * (part + 1)]):
            failures.append(f"kSplit {k_split} part {part}: O")
        if not np.allclose(state, s_ref[:, columns * part:columns * (part + 1)]):
            failures.append(f"kSplit {k_split} part {part}: S")
    return failures


def check_prep(d):
    """prep_products' K K^T: warp w owns rows 16 (w / 2) .., columns 32 (w % 2) ..."""
    mi, mr, g, tg = LANE["mi"], LANE["mr"], LANE["g"], LANE["tg"]
    k = d["K"]
    kk_all = np.zeros((64, 64))
    for w in range(8):
        m0, n0 = 16 * (w >> 1), 32 * (w & 1)
        kk = [np.zeros((32, 4)) for _ in range(4)]
        for ks in range(8):
            af = ldsm(k, m0 + mr + 8 * (mi & 1), 8 * (mi >> 1) + 16 * ks)
            b01 = ldsm(k, n0 + 8 * (mi >> 1) + mr, 8 * (mi & 1) + 16 * ks)
            b23 = ldsm(k, n0 + 8 * (mi >> 1) + mr + 16, 8 * (mi & 1) + 16 * ks)
            for j, (b0, b1) in enumerate(((b01[0], b01[1]), (b01[2], b01[3]), (b23[0], b23[1]), (b23[2], b23[3]))):
                mma(kk[j], af, b0, b1)
        for j in range(4):
            for r in range(2):
                t, s = m0 + g + 8 * r, n0 + 8 * j + 2 * tg
                kk_all[t, s], kk_all[t, s + 1] = kk[j][:, 2 * r], kk[j][:, 2 * r + 1]
    return [] if np.allclose(kk_all, k @ k.T) else ["prep: K K^T"]


def blocked_inverse(a):
    """tinv_invert of gdn_chunk_prep_tinv.cuh: (I + A)^-1 for A strictly lower, 16 x 16 tiles."""
    tf = np.zeros((64, 64))
    for b in range(0, 64, 16):
        for j in range(16):
            x = np.zeros(16)
            for i in range(16):
                acc = 1.0 if i == j else 0.0
                for s_ in range(i):
                    acc -= a[b + i, b + s_] * x[s_]
                x[i] = 0.0 if i < j else acc
            tf[b:b + 16, b + j] = x
    for d in range(1, 4):
        m = np.zeros((4 - d, 16, 16))
        for e in range((4 - d) * 256):
            i, r, c = d + e // 256, (e % 256) // 16, e % 16
            j = i - d
            m[e // 256, r, c] = sum(a[16 * i + r, u] * tf[u, 16 * j + c] for u in range(16 * j, 16 * i))
        for e in range((4 - d) * 256):
            i, r, c = d + e // 256, (e % 256) // 16, e % 16
            j = i - d
            tf[16 * i + r, 16 * j + c] = -sum(tf[16 * i + r, 16 * i + s_] * m[e // 256, s_, c] for s_ in range(16))
    return tf


def check_tinv(d):
    """The blocked inverse, and tinv_product's [W | U^] = T R: warp w's 32 columns, two halves
    of 2 m tiles, A = T by ldmatrix, B = R by ldmatrix.trans."""
    mi, mr, g, tg = LANE["mi"], LANE["mr"], LANE["g"], LANE["tg"]
    failures = []
    a = d["A"]
    t = blocked_inverse(a)
    if not np.allclose(t @ (np.eye(64) + a), np.eye(64), atol=1e-9):
        failures.append("tinv: (I + A)^-1")
    r = np.concatenate([d["Rk"], d["Rv"]], axis=1)  # [64 tokens][256 columns]
    x = np.zeros((64, 256))
    for w in range(8):
        src = d["Rv"] if w >= 4 else d["Rk"]
        c0 = 32 * (w % 4)
        for half in range(2):
            acc = [[np.zeros((32, 4)) for _ in range(4)] for _ in range(2)]
            for ks in range(4):
                af = [ldsm(t, 16 * (2 * half + mt) + mr + 8 * (mi & 1), 8 * (mi >> 1) + 16 * ks) for mt in range(2)]
                for np_ in range(2):
                    bk = ldsm(src, mr + 8 * (mi & 1) + 16 * ks, 8 * (mi >> 1) + c0 + 16 * np_, trans=True)
                    for mt in range(2):
                        mma(acc[mt][2 * np_], af[mt], bk[0], bk[1])
                        mma(acc[mt][2 * np_ + 1], af[mt], bk[2], bk[3])
            for mt in range(2):
                for nt in range(4):
                    for hi in range(2):
                        row, col = 16 * (2 * half + mt) + g + 8 * hi, 128 * (w >= 4) + c0 + 8 * nt + 2 * tg
                        x[row, col], x[row, col + 1] = acc[mt][nt][:, 2 * hi], acc[mt][nt][:, 2 * hi + 1]
    if not np.allclose(x, t @ r):
        failures.append("tinv: T R")
    return failures


def main():
    global LANE
    if len(sys.argv) > 1:
        print(__doc__.strip())
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    if np is None:
        print("chunk_fragments.py: needs numpy (python3 -m pip install numpy)", file=sys.stderr)
        return 77  # CTest's skip code
    lanes = np.arange(32)
    LANE = {"g": lanes >> 2, "tg": lanes & 3, "mi": lanes >> 3, "mr": lanes & 7}
    rng = np.random.default_rng(3)
    d = {
        "St": rng.standard_normal((16, 128)) * 0.1,  # the V group's rows of S^T
        "W": f16(rng.standard_normal((64, 128)) * 0.3),
        "Q": f16(rng.standard_normal((64, 128)) * 0.1),
        "K": f16(rng.standard_normal((64, 128)) * 0.1),
        "P": f16(np.tril(rng.standard_normal((64, 64)) * 0.1)),
        "Uh": f16(rng.standard_normal((16, 64))),  # U^ transposed, the group's rows
        "lg": np.cumsum(-rng.uniform(0, 0.05, 64)),
        "A": np.tril(rng.standard_normal((64, 64)) * 0.1, -1),
        "Rk": f16(rng.standard_normal((64, 128)) * 0.1),
        "Rv": f16(rng.standard_normal((64, 128))),
    }
    failures = check_prep(d) + check_pass(d, 1) + check_pass(d, 2) + check_pass(d, 4) + check_tinv(d)
    for f in failures:
        print(f"MISMATCH {f}")
    print("chunk_fragments.py: " + ("every product matches" if not failures else f"{len(failures)} mismatches"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
