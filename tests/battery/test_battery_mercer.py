"""Bad-input battery of ktheory.mercer (every public callable x every input category)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from battery._common import Case, run_case
from ktheory.kernels import gaussian_kernel, sigmoid_kernel
from ktheory.mercer import (
    NystromFeatures,
    RandomFourierFeatures,
    gaussian_eigenfunctions,
    gaussian_eigenvalues,
    min_kernel_eigenfunctions,
    min_kernel_eigenvalues,
    nystrom_eigenpairs,
)

M = "ktheory.mercer."
MKV, MKF = M + "min_kernel_eigenvalues", M + "min_kernel_eigenfunctions"
GV, GF = M + "gaussian_eigenvalues", M + "gaussian_eigenfunctions"
NE, NEF = M + "nystrom_eigenpairs", M + "NystromEigenpairs.eigenfunctions"
NFF, NFT = M + "NystromFeatures.fit", M + "NystromFeatures.transform"
RFF, RFT = M + "RandomFourierFeatures.fit", M + "RandomFourierFeatures.transform"
PUBLIC = [MKV, MKF, GV, GF, NE, NEF, NFF, NFT, RFF, RFT]

RNG = np.random.default_rng(0)
X0 = RNG.normal(size=(40, 2))
X0_BOOL = RNG.integers(0, 2, size=(40, 2)).astype(bool)
X0_BOOL[:3] = [[0, 0], [0, 1], [1, 1]]  # at least three distinct rows


def _eig():
    return nystrom_eigenpairs(X0, 3, sigma=1.0)


def _nf(m=10, X=X0):
    return NystromFeatures(m, sigma=1.0, random_state=0).fit(X)


def _rf(D=20):
    return RandomFourierFeatures(D, sigma=1.0, random_state=0).fit(X0)


def _tanh(A, B):
    return sigmoid_kernel(A, B, gamma=1.0, coef0=1.0)


def _nonsym(A, B):
    return gaussian_kernel(A, B) + 0.1 * np.arange(B.shape[0])[None, :]


def _close(expected, atol=1e-12):
    def check(result):
        np.testing.assert_allclose(result, expected, atol=atol)
    return check


def _finite_shape(shape):
    def check(result):
        assert result.shape == shape and np.all(np.isfinite(result))
    return check


def _gram_check(est, X, atol=1e-6):
    def check(Z):
        K = est._k(np.asarray(X, dtype=float), est.landmarks_)
        # the features reproduce the kernel at the landmarks: Z_L Z^T = K(L, X)
        ZL = est.transform(est.landmarks_)
        np.testing.assert_allclose(ZL @ Z.T, K.T, atol=atol)
    return check


def _eigvals_close(expected, rtol=1e-6):
    def check(est):
        np.testing.assert_allclose(est.eigenvalues, expected, rtol=rtol)
    return check


EIG = _eig()
NF = _nf()
RF = _rf()
RF5 = RandomFourierFeatures(5, sigma=1.0, random_state=0).fit(X0)


def _one_direction(est):
    assert est.eigenvalues_.size == 1, "a rank-one landmark Gram kept more than one direction"


def _scaled_frequencies(est):
    np.testing.assert_allclose(est.frequencies_, RF5.frequencies_ * 1e200, rtol=1e-12)
lam_x0 = EIG.eigenvalues

CASES = [
    # ---- min_kernel_eigenvalues -------------------------------------------------
    Case(MKV, "nan-inf", lambda: min_kernel_eigenvalues(float("nan")), "TypeError", match="n_terms",
         note="NaN as n_terms"),
    Case(MKV, "one-sample", lambda: min_kernel_eigenvalues(1), "ok", check=_close([4 / math.pi**2]),
         note="one term"),
    Case(MKV, "extreme-scale", lambda: min_kernel_eigenvalues(10**6), "ok",
         check=lambda r: np.testing.assert_allclose(r.sum(), 0.5, atol=1e-6), note="a million terms"),
    Case(MKV, "param-type", lambda: min_kernel_eigenvalues("3"), "TypeError", match="n_terms", note="str"),
    Case(MKV, "param-type", lambda: min_kernel_eigenvalues(2.0), "TypeError", match="n_terms", note="float"),
    Case(MKV, "param-range", lambda: min_kernel_eigenvalues(0), "ValueError", match="n_terms", note="zero"),
    Case(MKV, "huge-size", lambda: min_kernel_eigenvalues(10**10), "ValueError", match="MAX_ELEMENTS",
         note="1e10 terms"),
    Case(MKV, "dtype-bool", lambda: min_kernel_eigenvalues(True), "TypeError", match="n_terms",
         note="bool n_terms"),
    # ---- min_kernel_eigenfunctions ---------------------------------------------
    Case(MKF, "shape", lambda: min_kernel_eigenfunctions([[0.5]], 2), "ValueError", match="x must be a 1-D",
         note="2-D x"),
    Case(MKF, "dtype-complex", lambda: min_kernel_eigenfunctions(np.array([0.5 + 1j]), 2), "TypeError",
         match="complex", note="complex x"),
    Case(MKF, "dtype-bool", lambda: min_kernel_eigenfunctions(np.array([True, False]), 2), "ok",
         check=_close(min_kernel_eigenfunctions([1.0, 0.0], 2)), note="bool x as 0/1"),
    Case(MKF, "dtype-object", lambda: min_kernel_eigenfunctions(["a"], 2), "TypeError", match="x must be",
         note="strings"),
    Case(MKF, "dtype-float32", lambda: min_kernel_eigenfunctions(np.float32([0.25, 0.5]), 3), "ok",
         check=_close(min_kernel_eigenfunctions([0.25, 0.5], 3), atol=1e-6), note="float32"),
    Case(MKF, "nan-inf", lambda: min_kernel_eigenfunctions([0.1, np.nan], 2), "ValueError", match="NaN",
         note="NaN"),
    Case(MKF, "empty", lambda: min_kernel_eigenfunctions([], 2), "ValueError", match="x is empty", note="no points"),
    Case(MKF, "one-sample", lambda: min_kernel_eigenfunctions([0.5], 1), "ok",
         check=_close([[math.sqrt(2) * math.sin(math.pi / 4)]]), note="one point"),
    Case(MKF, "extreme-scale", lambda: min_kernel_eigenfunctions([1e-200], 3), "ok",
         check=_finite_shape((1, 3)), note="x = 1e-200"),
    Case(MKF, "extreme-scale", lambda: min_kernel_eigenfunctions([1e200], 3), "ValueError", match=r"\[0, 1\]",
         note="x = 1e200 outside the domain"),
    Case(MKF, "param-type", lambda: min_kernel_eigenfunctions([0.5], "2"), "TypeError", match="n_terms",
         note="str n_terms"),
    Case(MKF, "param-range", lambda: min_kernel_eigenfunctions([0.5], -1), "ValueError", match="n_terms",
         note="negative"),
    Case(MKF, "huge-size", lambda: min_kernel_eigenfunctions(np.zeros(1000), 10**9), "ValueError",
         match="MAX_ELEMENTS", note="1e12 entries"),
    # ---- gaussian_eigenvalues ---------------------------------------------------
    Case(GV, "shape", lambda: gaussian_eigenvalues(3, sigma=np.array([1.0, 2.0])), "TypeError", match="sigma",
         note="array sigma"),
    Case(GV, "dtype-complex", lambda: gaussian_eigenvalues(3, sigma=1 + 0j), "TypeError", match="sigma",
         note="complex sigma"),
    Case(GV, "dtype-bool", lambda: gaussian_eigenvalues(3, scale=True), "TypeError", match="scale",
         note="bool scale"),
    Case(GV, "dtype-object", lambda: gaussian_eigenvalues(3, sigma="1"), "TypeError", match="sigma",
         note="str sigma"),
    Case(GV, "dtype-float32", lambda: gaussian_eigenvalues(3, sigma=np.float32(0.5)), "ok",
         check=_close(gaussian_eigenvalues(3, sigma=0.5)), note="float32 sigma"),
    Case(GV, "nan-inf", lambda: gaussian_eigenvalues(3, sigma=float("inf")), "ValueError", match="sigma",
         note="inf sigma"),
    Case(GV, "one-sample", lambda: gaussian_eigenvalues(1), "ok", check=_close([(math.sqrt(5) - 1) / 2]),
         note="one term"),
    Case(GV, "extreme-scale", lambda: gaussian_eigenvalues(3, sigma=1e200), "ok", check=_close([1, 0, 0]),
         note="constant-kernel limit"),
    Case(GV, "extreme-scale", lambda: gaussian_eigenvalues(3, sigma=1e-200, scale=1e200), "ValueError",
         match="scale / sigma", note="ratio overflows"),
    Case(GV, "param-type", lambda: gaussian_eigenvalues(2.5), "TypeError", match="n_terms", note="float n"),
    Case(GV, "extreme-scale", lambda: gaussian_eigenvalues(5, sigma=1e-300), "ValueError",
         match="too large", note="issue 29: OverflowError from a Python float power"),
    Case(GV, "extreme-scale", lambda: gaussian_eigenvalues(5, scale=1e200), "ValueError",
         match="too large", note="issue 29: OverflowError from a Python float power"),
    Case(GF, "extreme-scale", lambda: gaussian_eigenfunctions([0.1], 5, sigma=1e-300), "ValueError",
         match="too large", note="issue 29: OverflowError from a Python float power"),
    Case(GV, "param-range", lambda: gaussian_eigenvalues(3, sigma=-1.0), "ValueError", match="sigma",
         note="negative sigma"),
    Case(GV, "param-range", lambda: gaussian_eigenvalues(3, scale=0.0), "ValueError", match="scale",
         note="zero scale"),
    Case(GV, "huge-size", lambda: gaussian_eigenvalues(10**10), "ValueError", match="MAX_ELEMENTS",
         note="1e10 terms"),
    # ---- gaussian_eigenfunctions ------------------------------------------------
    Case(GF, "shape", lambda: gaussian_eigenfunctions(np.zeros((2, 2)), 3), "ValueError", match="x must be a 1-D",
         note="2-D x"),
    Case(GF, "dtype-complex", lambda: gaussian_eigenfunctions(np.array([1j]), 3), "TypeError", match="complex",
         note="complex x"),
    Case(GF, "dtype-bool", lambda: gaussian_eigenfunctions(np.array([True, False]), 3), "ok",
         check=_close(gaussian_eigenfunctions([1.0, 0.0], 3)), note="bool x"),
    Case(GF, "dtype-object", lambda: gaussian_eigenfunctions(np.array(["x"], dtype=object), 3), "TypeError",
         match="x must be", note="object x"),
    Case(GF, "dtype-float32", lambda: gaussian_eigenfunctions(np.float32([0.3, -1.2]), 4), "ok",
         check=_close(gaussian_eigenfunctions([0.3, -1.2], 4), atol=1e-6), note="float32"),
    Case(GF, "nan-inf", lambda: gaussian_eigenfunctions([np.inf], 3), "ValueError", match="NaN", note="inf"),
    Case(GF, "empty", lambda: gaussian_eigenfunctions([], 3), "ValueError", match="x is empty", note="no points"),
    Case(GF, "one-sample", lambda: gaussian_eigenfunctions([0.0], 1), "ok", check=_close([[5**0.125]]),
         note="phi_0(0) = (c/a)^(1/4)"),
    Case(GF, "extreme-scale", lambda: gaussian_eigenfunctions([1e200, -1e200], 5), "ok",
         check=_close(np.zeros((2, 5))), note="x = 1e200: underflow to 0"),
    Case(GF, "param-type", lambda: gaussian_eigenfunctions([0.0], 3, sigma="a"), "TypeError", match="sigma",
         note="str sigma"),
    Case(GF, "param-range", lambda: gaussian_eigenfunctions([0.0], 3, scale=-2.0), "ValueError", match="scale",
         note="negative scale"),
    Case(GF, "huge-size", lambda: gaussian_eigenfunctions(np.zeros(10**4), 10**6), "ValueError",
         match="MAX_ELEMENTS", note="1e10 entries"),
    # ---- nystrom_eigenpairs -----------------------------------------------------
    Case(NE, "shape", lambda: nystrom_eigenpairs(np.zeros(5), 1), "ValueError", match="X must be a 2-D",
         note="1-D X"),
    Case(NE, "dtype-complex", lambda: nystrom_eigenpairs(X0 + 0j, 1), "TypeError", match="complex",
         note="complex X"),
    Case(NE, "dtype-bool", lambda: nystrom_eigenpairs(X0_BOOL, 2), "ok",
         check=_eigvals_close(nystrom_eigenpairs(X0_BOOL.astype(float), 2).eigenvalues), note="bool X"),
    Case(NE, "dtype-object", lambda: nystrom_eigenpairs(np.array([["a", "b"]]), 1), "TypeError",
         match="X must be a numeric", note="strings"),
    Case(NE, "dtype-float32", lambda: nystrom_eigenpairs(X0.astype(np.float32), 3), "ok",
         check=_eigvals_close(lam_x0, rtol=1e-5), note="float32"),
    Case(NE, "nan-inf", lambda: nystrom_eigenpairs(np.r_[X0, [[np.nan, 0]]], 1), "ValueError", match="NaN",
         note="NaN"),
    Case(NE, "empty", lambda: nystrom_eigenpairs(np.zeros((0, 2)), 1), "ValueError", match="X is empty",
         note="no samples"),
    Case(NE, "one-sample", lambda: nystrom_eigenpairs(X0[:1], 1), "ok", check=_eigvals_close([1.0]),
         note="k(x, x) / 1"),
    Case(NE, "one-class", lambda: nystrom_eigenpairs(np.ones((6, 2)), 1), "ok", check=_eigvals_close([1.0]),
         note="identical samples: rank one"),
    Case(NE, "one-class", lambda: nystrom_eigenpairs(np.ones((6, 2)), 2), "ValueError", match="nonzero",
         note="identical samples: 2nd eigenvalue is 0"),
    Case(NE, "extreme-scale", lambda: nystrom_eigenpairs(X0 * 1e200, 3), "ok", check=_eigvals_close([1 / 40] * 3),
         note="far-apart points: K = I"),
    Case(NE, "non-symmetric", lambda: nystrom_eigenpairs(X0, 1, kernel=_nonsym), "ValueError", match="symmetric",
         note="asymmetric callable"),
    Case(NE, "non-psd", lambda: nystrom_eigenpairs(np.linspace(-1, 1, 50)[:, None], 1, kernel=_tanh),
         "ValueError", match="not positive semidefinite", note="sigmoid"),
    Case(NE, "param-type", lambda: nystrom_eigenpairs(X0, 1.0), "TypeError", match="n_components",
         note="float n_components"),
    Case(NE, "param-type", lambda: nystrom_eigenpairs(X0, 1, allow_indefinite="yes"), "TypeError",
         match="allow_indefinite", note="str flag"),
    Case(NE, "param-type", lambda: nystrom_eigenpairs(X0, 1, kernel=3), "TypeError", match="kernel",
         note="int kernel"),
    Case(NE, "param-range", lambda: nystrom_eigenpairs(X0, 41), "ValueError", match="n_components",
         note="more components than samples"),
    Case(NE, "param-range", lambda: nystrom_eigenpairs(X0, 1, sigma=0.0), "ValueError", match="sigma",
         note="sigma = 0"),
    Case(NE, "huge-size", lambda: nystrom_eigenpairs(np.zeros((20_001, 1)), 1), "ValueError",
         match="MAX_EIG_SAMPLES", note="n = 20001"),
    # ---- NystromEigenpairs.eigenfunctions ---------------------------------------
    Case(NEF, "shape", lambda: EIG.eigenfunctions(np.zeros((3, 5))), "ValueError", match="features",
         note="wrong feature count"),
    Case(NEF, "dtype-complex", lambda: EIG.eigenfunctions(X0[:2] * 1j), "TypeError", match="complex",
         note="complex X"),
    Case(NEF, "dtype-bool", lambda: EIG.eigenfunctions(np.array([[True, False]])), "ok",
         check=_close(EIG.eigenfunctions([[1.0, 0.0]])), note="bool X"),
    Case(NEF, "dtype-object", lambda: EIG.eigenfunctions([["a", "b"]]), "TypeError", match="X must be",
         note="strings"),
    Case(NEF, "dtype-float32", lambda: EIG.eigenfunctions(X0[:3].astype(np.float32)), "ok",
         check=_close(EIG.eigenfunctions(X0[:3]), atol=1e-4), note="float32"),
    Case(NEF, "nan-inf", lambda: EIG.eigenfunctions([[np.nan, 1.0]]), "ValueError", match="NaN", note="NaN"),
    Case(NEF, "empty", lambda: EIG.eigenfunctions(np.zeros((0, 2))), "ValueError", match="X is empty",
         note="no points"),
    Case(NEF, "one-sample", lambda: EIG.eigenfunctions(X0[:1]), "ok",
         check=_close(np.sqrt(40) * EIG.vectors[:1], atol=1e-10), note="a sample point: sqrt(n) u"),
    Case(NEF, "extreme-scale", lambda: EIG.eigenfunctions([[1e200, -1e200]]), "ok",
         check=_close(np.zeros((1, 3))), note="far away: 0"),
    Case(NEF, "huge-size", lambda: nystrom_eigenpairs(np.linspace(0, 1, 500)[:, None], 1)
         .eigenfunctions(np.zeros((280_000, 1))), "ValueError", match="MAX_ELEMENTS", note="1.4e8 kernel values"),
    # ---- NystromFeatures.fit ------------------------------------------------------
    Case(NFF, "shape", lambda: _nf(X=np.zeros(20)), "ValueError", match="2-D array for X", note="1-D X"),
    Case(NFF, "dtype-complex", lambda: _nf(X=X0 * 1j), "TypeError", match="complex", note="complex X"),
    Case(NFF, "dtype-bool", lambda: _nf(3, X=X0_BOOL), "ok", check=lambda est: _gram_check(est, X0_BOOL)(
         est.transform(X0_BOOL)), note="bool X"),
    Case(NFF, "dtype-object", lambda: _nf(X=np.array([["a", "b"]] * 20)), "TypeError", match="X must hold numbers",
         note="strings"),
    Case(NFF, "dtype-float32", lambda: _nf(X=X0.astype(np.float32)), "ok",
         check=lambda est: np.testing.assert_allclose(est.landmarks_, X0[est.component_indices_], atol=1e-6),
         note="float32"),
    Case(NFF, "nan-inf", lambda: _nf(X=np.r_[X0, [[np.inf, 0]]]), "ValueError", match="X contains infinity",
         note="inf"),
    Case(NFF, "empty", lambda: _nf(X=np.zeros((0, 2))), "ValueError", match="0 sample", note="no samples"),
    Case(NFF, "one-sample", lambda: _nf(1, X=X0[:1]), "ok",
         check=lambda est: _close([[1.0]])(est.transform(X0[:1]) @ est.transform(X0[:1]).T), note="m = 1"),
    Case(NFF, "one-class", lambda: _nf(3, X=np.ones((10, 2))), "ok",
         check=_one_direction,
         note="identical rows: zero eigenvalues dropped"),
    Case(NFF, "extreme-scale", lambda: NystromFeatures(5, sigma=1e200, random_state=0).fit(X0), "ok",
         check=lambda est: _close(np.ones((40, 40)))(est.transform(X0) @ est.transform(X0).T),
         note="sigma = 1e200: constant kernel"),
    Case(NFF, "non-symmetric", lambda: NystromFeatures(10, kernel=_nonsym, random_state=0).fit(X0), "ValueError",
         match="symmetric", note="asymmetric callable"),
    Case(NFF, "non-psd", lambda: NystromFeatures(40, kernel=_tanh, random_state=0)
         .fit(np.linspace(-1, 1, 40)[:, None]), "ValueError", match="not positive semidefinite", note="sigmoid"),
    Case(NFF, "param-type", lambda: NystromFeatures("5").fit(X0), "TypeError", match="n_components", note="str m"),
    Case(NFF, "param-type", lambda: NystromFeatures(5, random_state=1.5).fit(X0), "TypeError",
         match="random_state", note="float seed"),
    Case(NFF, "param-range", lambda: NystromFeatures(41).fit(X0), "ValueError", match="n_components",
         note="more landmarks than samples"),
    Case(NFF, "param-range", lambda: NystromFeatures(0).fit(X0), "ValueError", match="n_components", note="m = 0"),
    Case(NFF, "param-range", lambda: NystromFeatures(5, sigma=-1.0).fit(X0), "ValueError", match="sigma",
         note="sigma < 0"),
    Case(NFF, "huge-size", lambda: NystromFeatures(15_000, random_state=0).fit(np.zeros((20_000, 1))),
         "ValueError", match="MAX_ELEMENTS", note="15000^2 landmark Gram"),
    Case(NFF, "huge-size", lambda: NystromFeatures(11_000, random_state=0).fit(np.zeros((12_000, 1))),
         "ValueError", match="landmark eigenproblem", note="issue 29: an empty MemoryError('') before"),
    # ---- NystromFeatures.transform ------------------------------------------------
    Case(NFT, "shape", lambda: NF.transform(np.zeros((3, 4))), "ValueError", match="features",
         note="wrong feature count"),
    Case(NFT, "dtype-complex", lambda: NF.transform(X0 + 1j), "TypeError", match="complex", note="complex"),
    Case(NFT, "dtype-bool", lambda: NF.transform(X0_BOOL), "ok", check=_close(NF.transform(X0_BOOL * 1.0)),
         note="bool X"),
    Case(NFT, "dtype-object", lambda: NF.transform([["a", "b"]]), "TypeError", match="X must hold numbers",
         note="strings"),
    Case(NFT, "dtype-float32", lambda: NF.transform(X0.astype(np.float32)), "ok",
         check=_close(NF.transform(X0), atol=1e-4), note="float32"),
    Case(NFT, "nan-inf", lambda: NF.transform([[np.nan, 0.0]]), "ValueError", match="NaN", note="NaN"),
    Case(NFT, "empty", lambda: NF.transform(np.zeros((0, 2))), "ValueError", match="0 sample", note="no rows"),
    Case(NFT, "one-sample", lambda: NF.transform(X0[:1]), "ok", check=_gram_check(NF, X0[:1]), note="one row"),
    Case(NFT, "extreme-scale", lambda: NF.transform([[1e200, 1e200]]), "ok", check=_close(np.zeros((1, 10))),
         note="far away: 0"),
    Case(NFT, "extreme-scale",
         lambda: NystromFeatures(10, sigma=1e160, random_state=0).fit(X0 * 1e160).transform(X0 * 1e160), "ok",
         check=_close(NystromFeatures(10, sigma=1.0, random_state=0).fit(X0).transform(X0), atol=1e-9),
         note="issue 29: all NaN at |X| ~ 1e160 (squared norms overflow); X and sigma scaled together"),
    Case(NFT, "extreme-scale",
         lambda: (lambda m: (m, m.transform(X0 * 1e160)))(
             NystromFeatures(10, sigma=1.0, random_state=0).fit(X0 * 1e160)), "ok",
         check=lambda r: _close(np.isin(np.arange(len(X0)), r[0].component_indices_).astype(float))(
             np.einsum("ij,ij->i", r[1], r[1])),
         note="issue 29: 84-100 % NaN; points 1e160 apart: K = I, so Z Z^T is 1 at the landmarks only"),
    Case(NFT, "param-range", lambda: NystromFeatures(3).transform(X0), "ValueError", match="not fitted",
         note="transform before fit"),
    Case(NFT, "huge-size", lambda: NystromFeatures(500, sigma=3.0, random_state=0)
         .fit(np.random.default_rng(1).normal(size=(500, 4))).transform(np.zeros((400_000, 4))), "ValueError",
         match="MAX_ELEMENTS", note="over 1.6e8 features"),
    # ---- RandomFourierFeatures.fit --------------------------------------------------
    Case(RFF, "shape", lambda: RandomFourierFeatures(5).fit(np.zeros(3)), "ValueError", match="2-D array for X",
         note="1-D X"),
    Case(RFF, "dtype-complex", lambda: RandomFourierFeatures(5).fit(X0 * 1j), "TypeError", match="complex",
         note="complex X"),
    Case(RFF, "dtype-bool", lambda: RandomFourierFeatures(5, sigma=1.0, random_state=0).fit(X0_BOOL), "ok",
         check=lambda est: _close(RF5.frequencies_)(est.frequencies_), note="bool X: sigma given, only d is used"),
    Case(RFF, "dtype-object", lambda: RandomFourierFeatures(5).fit([["a", "b"]]), "TypeError",
         match="X must hold numbers", note="strings"),
    Case(RFF, "dtype-float32", lambda: RandomFourierFeatures(20, random_state=0).fit(X0.astype(np.float32)), "ok",
         check=lambda est: _close(RandomFourierFeatures(20, random_state=0).fit(X0).frequencies_,
                                  atol=1e-6)(est.frequencies_), note="float32, gamma='scale'"),
    Case(RFF, "nan-inf", lambda: RandomFourierFeatures(5).fit([[np.nan, 1.0]]), "ValueError", match="NaN",
         note="NaN"),
    Case(RFF, "empty", lambda: RandomFourierFeatures(5).fit(np.zeros((0, 2))), "ValueError", match="0 sample",
         note="no samples"),
    Case(RFF, "one-sample", lambda: RandomFourierFeatures(5, random_state=0).fit(X0[:1]), "ok",
         check=lambda est: _close(RF5.frequencies_ * np.sqrt(2.0 / (X0.shape[1] * X0[:1].var())))(
             est.frequencies_),
         note="one sample: gamma='scale' = 1 / (d X.var()), sigma^2 = 1 / (2 gamma)"),
    Case(RFF, "extreme-scale", lambda: RandomFourierFeatures(5, sigma=1e-200, random_state=0).fit(X0), "ok",
         check=_scaled_frequencies,
         note="sigma = 1e-200"),
    Case(RFF, "param-type", lambda: RandomFourierFeatures(2.5).fit(X0), "TypeError", match="n_components",
         note="float D"),
    Case(RFF, "param-range", lambda: RandomFourierFeatures(5, sigma=0.0).fit(X0), "ValueError", match="sigma",
         note="sigma = 0"),
    Case(RFF, "param-range", lambda: RandomFourierFeatures(5, random_state=-1).fit(X0), "ValueError",
         match="random_state", note="negative seed"),
    Case(RFF, "huge-size", lambda: RandomFourierFeatures(10**9).fit(X0), "ValueError", match="MAX_ELEMENTS",
         note="2e9 frequencies"),
    # ---- RandomFourierFeatures.transform ---------------------------------------------
    Case(RFT, "shape", lambda: RF.transform(np.zeros((2, 3))), "ValueError", match="features",
         note="wrong feature count"),
    Case(RFT, "dtype-complex", lambda: RF.transform(X0 * 1j), "TypeError", match="complex", note="complex"),
    Case(RFT, "dtype-bool", lambda: RF.transform(X0_BOOL), "ok", check=_close(RF.transform(X0_BOOL * 1.0)),
         note="bool X"),
    Case(RFT, "dtype-object", lambda: RF.transform([["a", "b"]]), "TypeError", match="X must hold numbers",
         note="strings"),
    Case(RFT, "dtype-float32", lambda: RF.transform(X0.astype(np.float32)), "ok",
         check=_close(RF.transform(X0), atol=1e-5), note="float32"),
    Case(RFT, "nan-inf", lambda: RF.transform([[np.inf, 0.0]]), "ValueError", match="X contains infinity",
         note="inf"),
    Case(RFT, "empty", lambda: RF.transform(np.zeros((0, 2))), "ValueError", match="0 sample", note="no rows"),
    Case(RFT, "one-sample", lambda: RF.transform(X0[:1]), "ok",
         check=_close(np.sqrt(2 / 20) * np.cos(X0[:1] @ RF.frequencies_ + RF.offsets_)), note="one row"),
    Case(RFT, "extreme-scale", lambda: RandomFourierFeatures(5, sigma=1e-300, random_state=0).fit(X0)
         .transform([[1e100, 1e100]]), "ValueError", match="overflows",
         note="X W overflows"),
    Case(RFT, "param-range", lambda: RandomFourierFeatures(3).transform(X0), "ValueError", match="not fitted",
         note="transform before fit"),
    Case(RFT, "huge-size", lambda: RandomFourierFeatures(1000, random_state=0).fit(X0)
         .transform(np.zeros((200_000, 2))), "ValueError", match="MAX_ELEMENTS", note="2e8 features"),
]

_NO_ARRAY = "takes no array input, only the integer n_terms"
_NO_MATRIX = "takes no kernel matrix: the kernel is fixed by the function"
_UNSUPERVISED = "unsupervised: there are no labels or targets"
NOT_APPLICABLE = {
    (MKV, "shape"): _NO_ARRAY,
    (MKV, "dtype-complex"): _NO_ARRAY,
    (MKV, "dtype-object"): _NO_ARRAY,
    (MKV, "dtype-float32"): _NO_ARRAY,
    (MKV, "empty"): _NO_ARRAY,
    (MKV, "one-class"): _UNSUPERVISED,
    (MKV, "non-symmetric"): _NO_MATRIX,
    (MKV, "non-psd"): _NO_MATRIX,
    (MKF, "one-class"): _UNSUPERVISED,
    (MKF, "non-symmetric"): _NO_MATRIX,
    (MKF, "non-psd"): _NO_MATRIX,
    (GV, "empty"): "takes no array input, only n_terms and two scalars",
    (GV, "one-class"): _UNSUPERVISED,
    (GV, "non-symmetric"): _NO_MATRIX,
    (GV, "non-psd"): _NO_MATRIX,
    (GF, "one-class"): _UNSUPERVISED,
    (GF, "non-symmetric"): _NO_MATRIX,
    (GF, "non-psd"): _NO_MATRIX,
    (NEF, "one-class"): _UNSUPERVISED,
    (NEF, "non-symmetric"): "evaluates a fitted expansion; the Gram matrix was checked by nystrom_eigenpairs",
    (NEF, "non-psd"): "evaluates a fitted expansion; the Gram matrix was checked by nystrom_eigenpairs",
    (NEF, "param-type"): "takes only X; the parameters were fixed by nystrom_eigenpairs",
    (NEF, "param-range"): "takes only X; the parameters were fixed by nystrom_eigenpairs",
    (NFT, "one-class"): _UNSUPERVISED,
    (NFT, "non-symmetric"): "the landmark Gram matrix was checked by fit",
    (NFT, "non-psd"): "the landmark Gram matrix was checked by fit",
    (NFT, "param-type"): "takes only X; the parameters are used by fit",
    (RFF, "one-class"): _UNSUPERVISED,
    (RFF, "non-symmetric"): "the Gaussian kernel is fixed: no kernel matrix or callable is taken",
    (RFF, "non-psd"): "the Gaussian kernel is fixed: no kernel matrix or callable is taken",
    (RFT, "one-class"): _UNSUPERVISED,
    (RFT, "non-symmetric"): "the Gaussian kernel is fixed: no kernel matrix or callable is taken",
    (RFT, "non-psd"): "the Gaussian kernel is fixed: no kernel matrix or callable is taken",
    (RFT, "param-type"): "takes only X; the parameters are used by fit",
}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery(case):
    run_case(case)
