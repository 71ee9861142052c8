"""ktheory.alignment on arrays of other libraries than numpy (issue 32, items 1, 3 and 4).

The functions compute in the input's namespace, on its device and in its dtype. The
oracle is always numpy in float64 (the package's own numpy path and explicit formulas).

array-api-strict provides the devices that catch what must not happen: ``device1``
refuses any conversion to numpy (a hidden host copy raises), ``no_float64`` has no
float64 (a hidden upcast raises). Dask checks the lazy path; the out-of-core test runs
linear_cka under an address-space limit smaller than the arrays.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ktheory.alignment import (
    center_kernel,
    cka,
    hsic,
    kta,
    linear_cka,
    minibatch_cka,
    minibatch_cka_batches,
)

xps = pytest.importorskip("array_api_strict")


def _dev(name):
    return xps.Device(name)


def _strict(A, device="device1", dtype=None):
    A = np.asarray(A)
    if dtype is None:
        dtype = xps.float32 if device in ("no_float64", "no_x64") else xps.float64
    return xps.asarray(A.astype(np.float64), dtype=dtype, device=_dev(device))


def _data(seed=0, n=300, d1=6, d2=4, offset=2.0):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d1)) + offset
    Y = np.tanh(X[:, :d2]) + 0.3 * g.standard_normal((n, d2))
    return X, Y


def _host(A):
    """A strict array back to numpy for checking (explicitly, through the CPU device)."""
    return np.asarray(A.to_device(_dev("CPU_DEVICE")))


# --------------------------------------------------------------------------- dispatch
def test_center_kernel_keeps_namespace_device_and_dtype():
    X, _ = _data(1, n=40)
    K = X @ X.T
    for dev, dt in (("device1", xps.float64), ("device1", xps.float32), ("no_float64", xps.float32)):
        Kc = center_kernel(_strict(K, dev, dt))
        assert isinstance(Kc, type(_strict(K)))
        assert Kc.device == _dev(dev) and Kc.dtype == dt
        tol = 1e-10 if dt == xps.float64 else 2e-5
        np.testing.assert_allclose(_host(Kc), center_kernel(K), atol=tol * np.abs(K).max())


def test_integers_become_the_devices_default_float():
    X, Y = _data(2, n=50)
    Xi, Yi = np.round(10 * X), np.round(10 * Y)
    ref = linear_cka(Xi, Yi)
    for dev, dt in (("device1", xps.float64), ("no_x64", xps.float32)):
        int_dt = xps.int64 if dev == "device1" else xps.int32
        got = linear_cka(xps.asarray(Xi.astype(np.int32), dtype=int_dt, device=_dev(dev)),
                         xps.asarray(Yi.astype(np.int32), dtype=int_dt, device=_dev(dev)))
        assert got == pytest.approx(ref, abs=1e-12 if dt == xps.float64 else 1e-5)


def test_lists_beside_foreign_arrays_are_moved_to_their_device():
    X, Y = _data(3, n=30)
    assert linear_cka(_strict(X), Y.tolist()) == pytest.approx(linear_cka(X, Y), rel=1e-12)


def test_mixing_numpy_and_foreign_arrays_is_a_type_error_naming_them():
    X, Y = _data(4, n=30)
    with pytest.raises(TypeError, match="Y is a numpy array but X is a array_api_strict array"):
        linear_cka(_strict(X), Y)
    K = X @ X.T
    with pytest.raises(TypeError, match="K1 is a numpy array"):
        cka(K, _strict(K))


def test_arrays_on_two_devices_are_a_value_error():
    X, Y = _data(5, n=30)
    with pytest.raises(ValueError, match="X and Y are on different devices"):
        linear_cka(_strict(X, "device1"), _strict(Y, "device2"))


def test_complex_and_non_numeric_input_is_a_type_error():
    X, _ = _data(6, n=10)
    Z = xps.asarray(X.astype(np.complex128), device=_dev("device1"))
    with pytest.raises(TypeError, match="X must be a real array; got complex"):
        linear_cka(Z, _strict(X))
    with pytest.raises(TypeError, match="K must be a real array"):
        center_kernel(xps.asarray((X @ X.T).astype(np.complex128), device=_dev("device1")))


@pytest.mark.parametrize("dev", ["device1", "no_float64"])
def test_validation_on_foreign_arrays(dev):
    X, Y = _data(7, n=20)
    K = X @ X.T
    bad = K.copy()
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match=r"K2 contains NaN or infinity \(1 non-finite"):
        cka(_strict(K, dev), _strict(bad, dev))
    bad[3, 4] = -np.inf
    with pytest.raises(ValueError, match="K1 contains NaN"):
        kta(_strict(bad, dev), _strict(K, dev))
    Xb = X.copy()
    Xb[0, 0] = np.inf
    with pytest.raises(ValueError, match="X contains NaN"):
        linear_cka(_strict(Xb, dev), _strict(Y, dev))
    with pytest.raises(ValueError, match="Y contains NaN"):
        minibatch_cka(_strict(X, dev), _strict(np.where(Y > 1, np.nan, Y), dev), 5, random_state=0)
    asym = K.copy()
    asym[0, 1] += 1e-3 * np.abs(K).max()
    with pytest.raises(ValueError, match="L must be symmetric"):
        hsic(_strict(K, dev), _strict(asym, dev))
    with pytest.raises(ValueError, match="K must be a square matrix"):
        center_kernel(_strict(np.ones((3, 4)), dev))
    with pytest.raises(ValueError, match="2-D"):
        linear_cka(_strict(np.ones(5), dev), _strict(np.ones((5, 2)), dev))
    with pytest.raises(ValueError, match="same number of rows"):
        linear_cka(_strict(np.ones((5, 2)), dev), _strict(np.ones((4, 2)), dev))
    with pytest.raises(ValueError, match="X has a centered Frobenius norm"):
        linear_cka(_strict(np.full((5, 2), 0.1), dev), _strict(Y[:5], dev))
    with pytest.raises(ValueError, match="same shape"):
        cka(_strict(K, dev), _strict(K[:4, :4], dev))
    with pytest.raises(ValueError, match="is empty"):
        center_kernel(_strict(np.ones((0, 0)), dev))


def test_streamed_batches_of_foreign_arrays_errors():
    X, Y = _data(8, n=40)
    s = lambda A: _strict(A, "device1")
    with pytest.raises(ValueError, match=r"X_2 \(batch 2\) contains NaN"):
        minibatch_cka_batches([(s(X[:10]), s(Y[:10])), (s(X[10:20]), s(Y[10:20])),
                               (s(np.where(X[20:] > 2, np.inf, X[20:])), s(Y[20:]))])
    with pytest.raises(TypeError, match="batch 1 holds arrays of another library"):
        minibatch_cka_batches([(s(X[:10]), s(Y[:10])), (X[10:20], Y[10:20])])
    with pytest.raises(ValueError, match=r"batch 1 has 2 \+ 4 features"):
        minibatch_cka_batches([(s(X[:10]), s(Y[:10])), (s(X[10:20, :2]), s(Y[10:20]))])
    with pytest.raises(ValueError, match="at least 4"):
        minibatch_cka_batches([(s(X[:3]), s(Y[:3]))])


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_extreme_scales_on_foreign_arrays(scale):
    X, Y = _data(9, n=60)
    K, L = X @ X.T, Y @ Y.T
    s = lambda A: _strict(A, "device1")
    assert linear_cka(s(scale * X), s(Y)) == pytest.approx(linear_cka(X, Y), rel=1e-10)
    assert cka(s(scale * K), s(L)) == pytest.approx(cka(K, L), rel=1e-10)
    assert kta(s(scale * K), s(L)) == pytest.approx(kta(K, L), rel=1e-10)
    assert hsic(s(np.sqrt(scale) * K), s(L)) == pytest.approx(hsic(np.sqrt(scale) * K, L), rel=1e-10)


def test_extreme_scales_in_float32():
    X, Y = _data(10, n=200)
    for scale in (1e-30, 1e30):
        got = linear_cka(_strict(scale * X, "no_float64"), _strict(Y, "no_float64"))
        assert got == pytest.approx(linear_cka(X, Y), abs=1e-5)


# --------------------------------------------------------------------------- Dask
da = pytest.importorskip("dask.array")


def test_dask_results_are_lazy_until_the_scalar_and_graph_based():
    import dask

    X, Y = _data(11, n=1000, d1=5, d2=3)
    Xd, Yd = da.from_array(X, chunks=(128, 2)), da.from_array(Y, chunks=(100, -1))
    calls = []

    class Count(dask.callbacks.Callback):
        def _start(self, dsk):
            calls.append(len(dsk))

    with Count():
        got = linear_cka(Xd, Yd)
    assert got == pytest.approx(linear_cka(X, Y), rel=1e-12)
    # two passes over the data (column statistics, then centred products) plus the final
    # scalars on small in-memory results: a handful of computes, never one per chunk
    assert len(calls) <= 8, calls
    Kc = center_kernel(da.from_array(X @ X.T, chunks=(300, 400)))
    assert isinstance(Kc, da.Array)
    np.testing.assert_allclose(Kc.compute(), center_kernel(X @ X.T), atol=1e-10)


_OUT_OF_CORE = textwrap.dedent(
    """
    import resource, sys
    import numpy as np, dask, dask.array as da
    from ktheory.alignment import linear_cka

    def vm():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize"):
                return int(line.split()[1]) * 1024

    # BLAS maps its buffers at its first call of the blocked GEMM: 512 x 512, because
    # OpenBLAS's SkylakeX kernel computes small products (64 x 64) without the buffer
    for dt in (np.float32, np.float64):
        np.ones((512, 512), dt) @ np.ones((512, 512), dt)
    n, d1, d2, rows = 1 << 20, 16, 8, 1 << 14
    total = n * (d1 + d2) * 4                      # X and Y in float32: 96 MiB
    room = 32 << 20                                # what is mapped now, plus 32 MiB
    resource.setrlimit(resource.RLIMIT_AS, (vm() + room, vm() + room))
    try:                                           # the limit is real: the arrays cannot be held
        np.empty(total, dtype=np.uint8)
        sys.exit("allocated the whole array under the limit")
    except MemoryError:
        pass
    dask.config.set(scheduler="synchronous")
    rng = da.random.default_rng(0)
    X = rng.random((n, d1), dtype=np.float32, chunks=(rows, d1)) + np.float32(100.0)
    Y = da.tanh(X[:, :d2] - 100.5) + 0.3 * rng.random((n, d2), dtype=np.float32, chunks=(rows, d2))
    got = linear_cka(X, Y)
    # oracle: float64 sums and cross-products reduced over the same chunks, one more pass
    Z = da.concatenate([X, Y], axis=1).astype(np.float64) - 100.0 * (da.arange(d1 + d2) < d1)
    s, G = dask.compute(Z.sum(axis=0), Z.T @ Z)
    C = G - np.outer(s, s) / n
    Cxx, Cyy, Cxy = C[:d1, :d1], C[d1:, d1:], C[:d1, d1:]
    ref = np.sum(Cxy**2) / (np.linalg.norm(Cxx) * np.linalg.norm(Cyy))
    print(got, ref, abs(got - ref))
    assert abs(got - ref) < 1e-5, (got, ref)
    """
)


def test_dask_linear_cka_beyond_the_memory_limit():
    """96 MiB of lazily generated float32 rows with 32 MiB of address space left above what
    the interpreter has mapped (RLIMIT_AS): linear_cka streams the row chunks twice and agrees
    with a float64 oracle reduced over the same chunks."""
    if not sys.platform.startswith("linux"):
        pytest.skip("RLIMIT_AS and /proc/self/status: Linux only")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-c", _OUT_OF_CORE], capture_output=True, text=True,
                         env=env, timeout=300, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
