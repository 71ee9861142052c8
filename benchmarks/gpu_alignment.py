"""ktheory.alignment on a GPU (issue 32): agreement with numpy and the time of linear CKA.

Run: .venv/bin/python benchmarks/gpu_alignment.py [--out FILE.json]

Where torch (or CuPy) sees a CUDA device:

1. agreement: linear_cka, cka, hsic (biased, unbiased), minibatch_cka on float32 arrays of
   the device against numpy float64 on the same values (copied to the host explicitly, here,
   for the oracle): within 1e-5 for the values in [0, 1] at n = 10**6 rows, d = 64, feature
   means 1e4 times their standard deviation (the float32 bound of the issue);
2. time: linear_cka for n = 10**6, d = 2048 (float32, 16 GB of inputs) against the same
   computation in plain torch (centre, three products, Frobenius norms), median of 3, with
   the device synchronised; TF32 matmuls stay as torch's default (off) and are reported.

Where no GPU library with a device is present it says so and exits 0. It imports without
torch and CuPy. Not part of run_all.py (it needs an accelerator); its output is recorded
by a session that has one.
"""

from __future__ import annotations

import datetime as _dt
import json
import sys
import time

import numpy as np

from ktheory.alignment import cka, hsic, linear_cka, minibatch_cka


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _cupy_cuda():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
    except Exception:  # noqa: BLE001 - ImportError, or a CUDA runtime without a device
        return None
    return cupy


def _oracle_linear_cka(X, Y):
    """numpy float64 on the same values, products summed over row blocks."""
    d1 = X.shape[1]
    Z = np.hstack([X, Y]).astype(np.float64)
    Z -= Z.mean(axis=0)
    G = sum(Z[i : i + 65536].T @ Z[i : i + 65536] for i in range(0, len(Z), 65536))
    Cxx, Cyy, Cxy = G[:d1, :d1], G[d1:, d1:], G[:d1, d1:]
    return float(np.sum(Cxy**2) / (np.linalg.norm(Cxx) * np.linalg.norm(Cyy)))


def _data(n=10**6, d1=64, d2=32, seed=0):
    g = np.random.default_rng(seed)
    Z = g.standard_normal((n, d1), dtype=np.float32)
    H = np.maximum(Z[:, :d2] + 0.7 * g.standard_normal((n, d2), dtype=np.float32), 0)
    return Z + np.float32(1e4), H / H.std(axis=0) + np.float32(3e4)


def agreement(to_device, label):
    """Largest |float32 on the device - numpy float64| over the measures, with the values."""
    rows = []
    X, Y = _data()
    ref = _oracle_linear_cka(X, Y)
    got = linear_cka(to_device(X), to_device(Y))
    rows.append(("linear_cka n=1e6 d=64+32, offsets 1e4 sd", got, ref, 1e-5))
    g = np.random.default_rng(1)
    F = g.standard_normal((2000, 8)) + 5.0
    K = (F @ F.T).astype(np.float32)
    Gm = np.tanh(F[:, :3]) + 0.5 * g.standard_normal((2000, 3))
    L = np.exp(-0.1 * ((Gm[:, None] - Gm[None]) ** 2).sum(-1)).astype(np.float32)
    K64, L64 = K.astype(np.float64), L.astype(np.float64)
    rows.append(("cka n=2000", cka(to_device(K), to_device(L)), cka(K64, L64), 1e-5))
    h = hsic(K64, L64)
    rows.append(("hsic biased (relative)", hsic(to_device(K), to_device(L)) / h, 1.0, 1e-4))
    hu = hsic(K64, L64, unbiased=True)
    rows.append(("hsic unbiased (relative)", hsic(to_device(K), to_device(L), unbiased=True) / hu, 1.0, 1e-3))
    Xs, Ys = X[:50_000], Y[:50_000]
    ref_mb = minibatch_cka(Xs.astype(np.float64), Ys.astype(np.float64), 500, random_state=0)
    rows.append(("minibatch_cka n=5e4 b=500", minibatch_cka(to_device(Xs), to_device(Ys), 500, random_state=0),
                 ref_mb, 1e-5))
    out = []
    ok = True
    for name, got, ref, tol in rows:
        err = abs(got - ref)
        ok &= err <= tol
        out.append(dict(case=name, value=got, float64=ref, abs_error=err, bound=tol, met=bool(err <= tol)))
        print(f"  [{label}] {name:42s} {got:.9f} vs {ref:.9f}  |diff| {err:.2e}  "
              f"{'ok' if err <= tol else 'ABOVE ' + format(tol, 'g')}")
    return out, ok


def timing_torch(torch, n=10**6, d=2048, repeat=3):
    dev = "cuda"
    X = torch.randn(n, d, device=dev, dtype=torch.float32) + 3.0
    Y = torch.relu(X[:, : d // 2] @ torch.randn(d // 2, d, device=dev) / d**0.5)
    Y += 0.5 * torch.randn(n, d, device=dev)

    def plain():
        Xc, Yc = X - X.mean(0), Y - Y.mean(0)
        num = (Yc.T @ Xc).square().sum()
        return float(num / (torch.linalg.matrix_norm(Xc.T @ Xc) * torch.linalg.matrix_norm(Yc.T @ Yc)))

    def ours():
        return linear_cka(X, Y)

    def med(f):
        ts, v = [], None
        for _ in range(repeat):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            v = f()
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - t0)
        return float(np.median(ts)), v

    ours()  # warm-up (kernels, allocator)
    plain()
    t_ours, v_ours = med(ours)
    t_plain, v_plain = med(plain)
    print(f"  [torch] linear CKA n={n}, d={d}, float32: ktheory {t_ours:.3f} s (value {v_ours:.7f}), "
          f"plain torch {t_plain:.3f} s (value {v_plain:.7f}), ratio {t_ours / t_plain:.2f}")
    return dict(n=n, d=d, dtype="float32", time_s=t_ours, value=v_ours, peer="plain torch",
                peer_time_s=t_plain, peer_value=v_plain, ratio=t_ours / t_plain,
                tf32=bool(torch.backends.cuda.matmul.allow_tf32))


def main(argv):
    out_path = argv[argv.index("--out") + 1] if "--out" in argv else None
    torch, cupy = _torch_cuda(), _cupy_cuda()
    if torch is None and cupy is None:
        print("gpu_alignment: no GPU here (neither torch nor CuPy with a CUDA device); nothing checked")
        return 0
    record = dict(date=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), runs=[])
    ok = True
    if torch is not None:
        name = torch.cuda.get_device_name(0)
        print(f"torch {torch.__version__} on {name}")
        rows, good = agreement(lambda A: torch.as_tensor(A, device="cuda"), "torch")
        ok &= good
        record["runs"].append(dict(library="torch", version=torch.__version__, device=name,
                                   agreement=rows, timing=timing_torch(torch)))
    if cupy is not None:
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        print(f"cupy {cupy.__version__} on {name}")
        rows, good = agreement(cupy.asarray, "cupy")
        ok &= good
        record["runs"].append(dict(library="cupy", version=cupy.__version__, device=name, agreement=rows))
    if out_path:
        with open(out_path, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1)
    print("all agreement checks within the float32 bound" if ok else "SOME CHECKS ABOVE THE BOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
