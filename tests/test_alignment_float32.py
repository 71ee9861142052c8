"""float32 that is safe (issue 32, item 2).

On float32 input the alignment measures agree with float64 on the same data (the float32
values, widened) to 1e-5 absolute, at n = 10**6 rows with feature means 10**4 times their
standard deviation. The computation runs in float32 on array-api-strict's ``no_float64``
device, where any float64 intermediate raises. The naive float32 formula (centring with
a plain column mean, or correcting uncentred products) is shown to fail on the same data,
so these tests can fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktheory.alignment import (
    center_kernel,
    cka,
    hsic,
    linear_cka,
    minibatch_cka,
    minibatch_cka_batches,
)

xps = pytest.importorskip("array_api_strict")
NO64 = xps.Device("no_float64")


def _f32(A):
    return xps.asarray(np.asarray(A, dtype=np.float32), device=NO64)


def _oracle_linear_cka(X, Y):
    """linear CKA in float64 from one symmetric product of the stacked, centred features."""
    Z = np.hstack([X, Y]).astype(np.float64)
    Z -= Z.mean(axis=0)
    G = sum(Z[i : i + 65536].T @ Z[i : i + 65536] for i in range(0, len(Z), 65536))  # row blocks:
    # a single BLAS call with 10**6 inner rows runs 30x slower on a loaded machine
    d1 = X.shape[1]
    Cxx, Cyy, Cxy = G[:d1, :d1], G[d1:, d1:], G[:d1, d1:]
    return float(np.sum(Cxy**2) / (np.linalg.norm(Cxx) * np.linalg.norm(Cyy)))


@pytest.fixture(scope="module")
def million_rows():
    """10**6 float32 rows, means 10**4 (X) and 3 * 10**4 (Y) times the standard deviation
    (ReLU-like Y: zeros and positive values), a dependence of moderate CKA."""
    g = np.random.default_rng(32)
    n, d1, d2 = 10**6, 16, 8
    Z = g.standard_normal((n, d1), dtype=np.float32)
    H = np.maximum(Z[:, :d2] + 0.7 * g.standard_normal((n, d2), dtype=np.float32), 0)
    X = Z + np.float32(1e4)
    Y = H / H.std(axis=0) + np.float32(3e4)
    return X, Y


def test_linear_cka_float32_at_a_million_rows_agrees_with_float64(million_rows):
    X, Y = million_rows
    ref = _oracle_linear_cka(X, Y)  # float64 on the same (float32) values
    assert 0.1 < ref < 0.9
    got = linear_cka(_f32(X), _f32(Y))  # computed in float32: no float64 on this device
    assert abs(got - ref) < 1e-5, (got, ref)
    # the formula without care, in float32, on the same data is far off: the test can fail
    Zc = np.hstack([X - X.mean(axis=0), Y - Y.mean(axis=0)])  # numpy's float32 column mean
    C = sum(Zc[i : i + 65536].T @ Zc[i : i + 65536] for i in range(0, len(Zc), 65536))
    Cxx, Cyy, Cxy = C[:16, :16], C[16:, 16:], C[:16, 16:]
    naive = float(np.sum(Cxy**2) / (np.linalg.norm(Cxx) * np.linalg.norm(Cyy)))
    assert abs(naive - ref) > 1e-3, (naive, ref)


def test_linear_cka_float32_survives_uncentred_products_corrected_afterwards(million_rows):
    """The cancellation the issue warns about: X^T X - n m m^T in float32 loses everything."""
    X, Y = million_rows
    X, Y = X[:200_000], Y[:200_000]
    ref = _oracle_linear_cka(X, Y)
    n = X.shape[0]
    mx, my = X.mean(axis=0, dtype=np.float64).astype(np.float32), Y.mean(axis=0, dtype=np.float64).astype(np.float32)
    Cxx = X.T @ X - n * np.outer(mx, mx)
    Cyy = Y.T @ Y - n * np.outer(my, my)
    Cxy = X.T @ Y - n * np.outer(mx, my)
    corrected = float(np.sum(Cxy**2) / (np.linalg.norm(Cxx) * np.linalg.norm(Cyy)))
    assert not abs(corrected - ref) < 1e-3
    assert abs(linear_cka(_f32(X), _f32(Y)) - ref) < 1e-5


def test_minibatch_cka_float32_agrees_with_float64(million_rows):
    X, Y = million_rows
    X, Y = X[:20_000], Y[:20_000]
    ref = minibatch_cka(X.astype(np.float64), Y.astype(np.float64), 500, random_state=1)
    assert abs(minibatch_cka(_f32(X), _f32(Y), 500, random_state=1) - ref) < 1e-5
    stream = [(_f32(X[i : i + 500]), _f32(Y[i : i + 500])) for i in range(0, 20_000, 500)]
    ref_s = minibatch_cka_batches([(X[i : i + 500].astype(np.float64), Y[i : i + 500].astype(np.float64))
                                   for i in range(0, 20_000, 500)])
    assert abs(minibatch_cka_batches(stream) - ref_s) < 1e-5


def test_gram_measures_float32_agree_with_float64():
    """Gram matrices in float32 (offset features: entries far from 0): centred columns first,
    then rows, then the columns once more."""
    g = np.random.default_rng(5)
    n = 1500
    F = g.standard_normal((n, 6)) + 20.0
    K = (F @ F.T).astype(np.float32)
    Gm = np.tanh(F[:, :3]) + 0.5 * g.standard_normal((n, 3))
    L = np.exp(-0.1 * ((Gm[:, None] - Gm[None]) ** 2).sum(-1)).astype(np.float32)
    K64, L64 = K.astype(np.float64), L.astype(np.float64)
    assert abs(cka(_f32(K), _f32(L)) - cka(K64, L64)) < 1e-5
    h = hsic(K64, L64)
    assert hsic(_f32(K), _f32(L)) == pytest.approx(h, rel=1e-4)
    Kc = center_kernel(_f32(K))
    assert Kc.dtype == xps.float32
    ref = center_kernel(K64)
    got = np.asarray(Kc.to_device(xps.Device("CPU_DEVICE")), dtype=np.float64)
    # an error of the order of the float32 rounding of K's entries, not of their sum
    assert np.abs(got - ref).max() < 64 * np.finfo(np.float32).eps * np.abs(K64).max()


def test_linear_cka_float32_on_dask(million_rows):
    da = pytest.importorskip("dask.array")
    X, Y = million_rows
    X, Y = X[:200_000], Y[:200_000]
    ref = _oracle_linear_cka(X, Y)
    got = linear_cka(da.from_array(X, chunks=(50_000, -1)), da.from_array(Y, chunks=(40_000, 4)))
    assert abs(got - ref) < 1e-5
