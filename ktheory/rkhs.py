"""Finite kernel expansions: the pre-Hilbert space from which an RKHS is built.

Given a positive definite kernel ``k`` on a set :math:`\\mathcal{X}`, the
functions

.. math::

    f(\\cdot) = \\sum_{i=1}^{m} a_i\\, k(c_i, \\cdot), \\qquad c_i \\in \\mathcal{X},\\ a_i \\in \\mathbb{R},

form a vector space :math:`\\mathcal{H}_0` with the inner product

.. math::

    \\langle f, g \\rangle = \\sum_{i=1}^{m} \\sum_{j=1}^{l} a_i b_j\\, k(c_i, d_j) = a^\\top K(C, D)\\, b

for :math:`g = \\sum_j b_j k(d_j, \\cdot)`.  Its completion is the reproducing
kernel Hilbert space :math:`\\mathcal{H}_k` (Moore--Aronszajn; Chapter 3 of the
book).  :class:`KernelExpansion` is one element of :math:`\\mathcal{H}_0`, with
evaluation, inner product, norm and the vector-space operations;
:func:`project` computes the best approximation of an element (or of
function values) in the span of :math:`k(c_1, \\cdot), \\dots, k(c_n, \\cdot)`.

The module stays one file although it is long (about 700 lines): it is one idea, the
pre-Hilbert space, and :func:`project` is the operation of that space that the chapters use
with :class:`KernelExpansion`.

Kernels are callables ``kernel(X, Y)`` that return the Gram block
``[k(x_i, y_j)]`` of shape ``(len(X), len(Y))`` for sample matrices of shape
``(n_samples, n_features)``, for example
``functools.partial(ktheory.kernels.gaussian_kernel, sigma=0.5)``.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any, Callable

import numpy as np
from scipy import linalg as sla

from ._validation import check_array, check_symmetric

__all__ = ["KernelExpansion", "project", "same_kernel"]

KernelFunc = Callable[[np.ndarray, np.ndarray], Any]


# --------------------------------------------------------------------------- helpers
def _values_equal(a: Any, b: Any) -> bool:
    """Equality that also works for numpy arrays and never raises."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
        except Exception:  # pragma: no cover - exotic objects
            return False
    if isinstance(a, functools.partial) and isinstance(b, functools.partial):
        return same_kernel(a, b)
    try:
        return bool(a == b)
    except Exception:
        return False


def same_kernel(k1: Callable[..., Any], k2: Callable[..., Any]) -> bool:
    """Decide whether two kernel callables are the same kernel.

    Two kernels are considered the same when they are the same object, when
    they compare equal (``k1 == k2``, e.g. two bound methods of one object),
    or when both are ``functools.partial`` objects wrapping the same
    function with equal positional and keyword arguments.  So
    ``partial(gaussian_kernel, sigma=0.5)`` created twice counts as one
    kernel, while two different lambdas never do (their code is not compared).

    Parameters
    ----------
    k1, k2 : callable
        Kernel callables.

    Returns
    -------
    bool
        True if the two callables are recognised as the same kernel.

    Raises
    ------
    TypeError
        If ``k1`` or ``k2`` is not callable.

    Examples
    --------
    >>> import functools
    >>> def k(X, Y, s=1.0):
    ...     return (X @ Y.T) * s
    >>> same_kernel(functools.partial(k, s=2.0), functools.partial(k, s=2.0))
    True
    >>> same_kernel(functools.partial(k, s=2.0), functools.partial(k, s=3.0))
    False
    """
    for kern, name in ((k1, "k1"), (k2, "k2")):
        if not callable(kern):
            raise TypeError(f"{name} must be a kernel callable, got {type(kern).__name__} {kern!r}")
    if k1 is k2:
        return True
    if isinstance(k1, functools.partial) and isinstance(k2, functools.partial):
        if not same_kernel(k1.func, k2.func):
            return False
        if len(k1.args) != len(k2.args) or set(k1.keywords) != set(k2.keywords):
            return False
        return all(_values_equal(a, b) for a, b in zip(k1.args, k2.args)) and all(
            _values_equal(k1.keywords[key], k2.keywords[key]) for key in k1.keywords
        )
    if isinstance(k1, functools.partial) or isinstance(k2, functools.partial):
        return False
    try:
        return bool(k1 == k2)
    except Exception:  # pragma: no cover - exotic __eq__
        return False


def _kernel_name(kernel: Any) -> str:
    """A readable, address-free description of a kernel callable (for messages and repr)."""
    if isinstance(kernel, functools.partial):
        parts = [_kernel_name(kernel.func)]
        parts += [repr(a) for a in kernel.args]
        parts += [f"{key}={val!r}" for key, val in kernel.keywords.items()]
        return "partial(" + ", ".join(parts) + ")"
    name = getattr(kernel, "__qualname__", None) or getattr(kernel, "__name__", None)
    return str(name) if name is not None else type(kernel).__name__


def _check_kernel(kernel: Any) -> KernelFunc:
    if not callable(kernel):
        raise TypeError(
            "kernel must be a callable kernel(X, Y) returning the Gram block of shape "
            f"(len(X), len(Y)); got {type(kernel).__name__} {kernel!r}. "
            "For a kernel by name use ktheory.kernels.make_kernel(name, ...)."
        )
    return kernel


#: Largest kernel block (values) evaluated at once: 2**30 (8 GiB).
MAX_GRAM_ELEMENTS = 1 << 30
#: Largest number of centers for :func:`project` (an O(n^3) solve of the normal equations).
MAX_PROJECT_CENTERS = 20_000


def _gram(kernel: KernelFunc, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Evaluate ``kernel(X, Y)`` and check the result's shape and finiteness."""
    if X.shape[0] == 0 or Y.shape[0] == 0:
        return np.zeros((X.shape[0], Y.shape[0]))
    if X.shape[0] * Y.shape[0] > MAX_GRAM_ELEMENTS:
        raise ValueError(
            f"kernel(X, Y) would have {X.shape[0]} x {Y.shape[0]} values, more than the limit "
            f"MAX_GRAM_ELEMENTS = {MAX_GRAM_ELEMENTS}; evaluate fewer points at a time"
        )
    raw = np.asarray(kernel(X, Y))
    if raw.dtype.kind == "c":
        raise TypeError("kernel(X, Y) returned complex values; a kernel must be real-valued")
    try:
        K = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"kernel(X, Y) must return real numbers: {exc}") from None
    if K.shape != (X.shape[0], Y.shape[0]):
        raise ValueError(
            "kernel(X, Y) must return an array of shape (len(X), len(Y)) = "
            f"{(X.shape[0], Y.shape[0])}; got shape {K.shape}"
        )
    if not np.all(np.isfinite(K)):
        raise ValueError("kernel(X, Y) returned NaN or infinity")
    return K


def _kernel_diag(kernel: KernelFunc, X: np.ndarray, block: int = 256) -> np.ndarray:
    """Diagonal ``k(x_i, x_i)`` computed in blocks (a generic callable has no diag)."""
    out = np.empty(X.shape[0])
    for start in range(0, X.shape[0], block):
        Xb = X[start : start + block]
        out[start : start + block] = np.diag(_gram(kernel, Xb, Xb))
    return out


def _check_scalar(c: Any, name: str = "scalar") -> float:
    if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(c).__name__} {c!r}")
    v = float(c)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {c!r}")
    return v


def _pow2(a: np.ndarray) -> float:
    """A power of two ``c`` with ``max|a| / c`` in ``[1, 2)`` (1.0 for zeros): exact rescaling."""
    m = float(np.max(np.abs(a))) if a.size else 0.0
    if m == 0.0 or not math.isfinite(m):
        return 1.0
    return math.ldexp(1.0, math.frexp(m)[1] - 1)


def _finite_result(value: Any, what: str) -> Any:
    """Raise ValueError if a computed value overflowed (instead of returning inf or NaN)."""
    if not np.all(np.isfinite(value)):
        raise ValueError(
            f"{what} overflows float64 (|value| > 1.8e308): the coefficients or kernel values are too large"
        )
    return value


def _bilinear(a: np.ndarray, K: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """``a^T K b`` as ``(value at unit scale, log2 of the scale)``: never overflows on the way."""
    ca, cb, ck = _pow2(a), _pow2(b), _pow2(K)
    with np.errstate(over="ignore", invalid="ignore"):
        v = float((a / ca) @ (K / ck) @ (b / cb))
    e = math.frexp(ca)[1] + math.frexp(cb)[1] + math.frexp(ck)[1] - 3
    return v, e


def _ldexp(v: float, e: int, what: str) -> float:
    try:
        out = math.ldexp(v, e) if v != 0.0 else 0.0
    except OverflowError:
        out = math.inf
    return float(_finite_result(out, what))


def _merge(centers: np.ndarray, coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Combine identical centers by adding their coefficients (first-appearance order)."""
    if centers.shape[0] <= 1:
        return centers, coef
    # +0.0 turns -0.0 into 0.0 so that the byte-wise row comparison of np.unique agrees with ==
    uniq, first, inverse = np.unique(centers + 0.0, axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    new_coef = np.zeros(uniq.shape[0])
    np.add.at(new_coef, rank[inverse], coef)
    return uniq[order], new_coef


# --------------------------------------------------------------------------- the class
class KernelExpansion:
    """A finite kernel expansion :math:`f = \\sum_i a_i k(c_i, \\cdot)`.

    The object is a function (call it on the rows of a sample matrix) and a
    vector of the pre-Hilbert space of finite expansions: it supports ``f + g``,
    ``f - g``, ``-f``, ``c * f``, ``f / c``, :meth:`inner`, :meth:`norm` and
    :meth:`distance`.  Sums merge the centers of both terms and add the
    coefficients of identical centers.

    Parameters
    ----------
    kernel : callable
        ``kernel(X, Y)`` returns the Gram block ``[k(x_i, y_j)]`` of shape
        ``(len(X), len(Y))`` for 2-D sample matrices.  The kernel should be
        symmetric and positive definite; :meth:`norm` raises if a clearly
        negative squared norm reveals that it is not.
    centers : array_like of shape (m, d)
        The points :math:`c_i`.  ``m = 0`` (shape ``(0, d)``) gives the zero
        function.
    coef : array_like of shape (m,)
        The coefficients :math:`a_i`.

    Attributes
    ----------
    kernel : callable
        The kernel.
    centers : numpy.ndarray of shape (m, d)
        The centers (a private copy).
    coef : numpy.ndarray of shape (m,)
        The coefficients (a private copy).

    Raises
    ------
    TypeError
        If ``kernel`` is not callable or the arrays are not numeric.
    ValueError
        If ``centers`` is not 2-D, ``coef`` is not 1-D, their lengths differ,
        or either contains NaN or infinity.

    Examples
    --------
    >>> import numpy as np
    >>> def gauss(X, Y):
    ...     d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    ...     return np.exp(-d2 / 2)
    >>> f = KernelExpansion(gauss, [[0.0], [1.0]], [1.0, -1.0])
    >>> g = KernelExpansion.feature(gauss, [0.5])
    >>> round(float(f.inner(g)), 12) == round(float(f([[0.5]])[0]), 12)
    True
    """

    # numpy must not broadcast over an expansion in ``np.float64(2) * f``
    __array_ufunc__ = None

    def __init__(self, kernel: KernelFunc, centers: Any, coef: Any) -> None:
        self.kernel = _check_kernel(kernel)
        C = check_array(centers, "centers", allow_empty=True)
        if C.shape[1] == 0:
            raise ValueError(f"centers must have at least one feature (column); got shape {C.shape}")
        a = check_array(coef, "coef", ndim=1, allow_empty=True)
        if a.shape[0] != C.shape[0]:
            raise ValueError(
                "coef must have one entry per center; "
                f"got centers.shape={C.shape} and coef.shape={a.shape}"
            )
        self.centers = C.copy()
        self.coef = a.copy()

    # ------------------------------------------------------------ constructors
    @classmethod
    def feature(cls, kernel: KernelFunc, x: Any) -> "KernelExpansion":
        """The canonical feature :math:`k(x, \\cdot)` of one point as an expansion.

        Parameters
        ----------
        kernel : callable
            The kernel.
        x : array_like of shape (d,) or (1, d)
            The point.

        Returns
        -------
        KernelExpansion
            One center ``x`` with coefficient 1.
        """
        if not isinstance(x, (str, bytes)) and np.ndim(x) == 1:
            xa = check_array(x, "x", ndim=1).reshape(1, -1)
        else:
            xa = check_array(x, "x")
        if xa.shape[0] != 1:
            raise ValueError(f"x must be a single point of shape (d,) or (1, d); got shape {xa.shape}")
        return cls(kernel, xa, np.ones(1))

    @classmethod
    def zero(cls, kernel: KernelFunc, n_features: int) -> "KernelExpansion":
        """The zero function of the space (no centers)."""
        if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) or n_features < 1:
            raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
        return cls(kernel, np.zeros((0, int(n_features))), np.zeros(0))

    # ------------------------------------------------------------ basic info
    @property
    def n_centers(self) -> int:
        """Number of centers ``m``."""
        return int(self.centers.shape[0])

    @property
    def n_features(self) -> int:
        """Dimension ``d`` of the input points."""
        return int(self.centers.shape[1])

    def __repr__(self) -> str:
        return (
            f"KernelExpansion(kernel={_kernel_name(self.kernel)}, "
            f"n_centers={self.n_centers}, n_features={self.n_features})"
        )

    def _check_X(self, X: Any, name: str = "X") -> np.ndarray:
        Xa = check_array(X, name)
        if Xa.shape[1] != self.n_features:
            raise ValueError(
                f"{name} must have {self.n_features} features (columns) like the centers; got shape {Xa.shape}"
            )
        return Xa

    def _check_other(self, other: Any, what: str) -> "KernelExpansion":
        if not isinstance(other, KernelExpansion):
            raise TypeError(f"{what} needs another KernelExpansion, got {type(other).__name__}")
        if not same_kernel(self.kernel, other.kernel):
            raise ValueError(
                f"{what}: the two expansions use different kernels ({_kernel_name(self.kernel)} and "
                f"{_kernel_name(other.kernel)}); "
                "they live in different spaces. Use the same kernel object for both."
            )
        if other.n_features != self.n_features:
            raise ValueError(
                f"{what}: the centers have different dimensions ({self.n_features} and {other.n_features})"
            )
        return other

    # ------------------------------------------------------------ evaluation
    def __call__(self, X: Any) -> np.ndarray:
        """Evaluate :math:`f(x) = \\sum_i a_i k(c_i, x)` at the rows of ``X``.

        Parameters
        ----------
        X : array_like of shape (n, d)

        Returns
        -------
        numpy.ndarray of shape (n,)
        """
        Xa = self._check_X(X)
        with np.errstate(over="ignore", invalid="ignore"):
            out = _gram(self.kernel, Xa, self.centers) @ self.coef
        return _finite_result(out, "f(X)")

    def evaluate_via_reproducing(self, X: Any) -> np.ndarray:
        """Evaluate ``f`` at the rows of ``X`` as inner products :math:`\\langle f, k(x, \\cdot) \\rangle`.

        This is the reproducing property written as code: the ``j``-th value
        is the inner product of ``f`` with the expansion ``k(x_j, .)``,
        i.e. :math:`\\sum_i a_i k(c_i, x_j)` computed with the centers as the
        *first* kernel argument (``__call__`` uses ``kernel(X, centers)``).
        For a symmetric kernel both agree.

        Parameters
        ----------
        X : array_like of shape (n, d)

        Returns
        -------
        numpy.ndarray of shape (n,)
        """
        Xa = self._check_X(X)
        # <f, k(x_j, .)> = a^T K(C, {x_j}) 1, for all j at once
        with np.errstate(over="ignore", invalid="ignore"):
            out = self.coef @ _gram(self.kernel, self.centers, Xa)
        return _finite_result(out, "<f, k(x, .)>")

    def evaluation_bound(self, X: Any) -> np.ndarray:
        """The bound :math:`\\sqrt{k(x, x)}\\, \\|f\\|` on :math:`|f(x)|` at each row of ``X``.

        By Cauchy--Schwarz and the reproducing property,
        :math:`|f(x)| = |\\langle f, k(x,\\cdot)\\rangle| \\le \\|k(x,\\cdot)\\| \\|f\\| = \\sqrt{k(x,x)}\\,\\|f\\|`.

        Parameters
        ----------
        X : array_like of shape (n, d)

        Returns
        -------
        numpy.ndarray of shape (n,)
        """
        Xa = self._check_X(X)
        diag = _kernel_diag(self.kernel, Xa)
        if np.any(diag < 0):
            raise ValueError("kernel(x, x) < 0 for some rows of X: the kernel is not positive definite")
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.sqrt(diag) * self.norm()
        return _finite_result(out, "the evaluation bound sqrt(k(x, x)) ||f||")

    # ------------------------------------------------------------ Hilbert structure
    def inner(self, other: "KernelExpansion") -> float:
        """The inner product :math:`\\langle f, g \\rangle = a^\\top K(C_f, C_g)\\, b`.

        Parameters
        ----------
        other : KernelExpansion
            Another expansion with the same kernel and input dimension.

        Returns
        -------
        float

        Raises
        ------
        TypeError
            If ``other`` is not a :class:`KernelExpansion`.
        ValueError
            If the kernels differ (see :func:`same_kernel`) or the dimensions differ.
        """
        g = self._check_other(other, "inner")
        v, e = _bilinear(self.coef, _gram(self.kernel, self.centers, g.centers), g.coef)
        return _ldexp(v, e, "the inner product <f, g>")

    def gram(self) -> np.ndarray:
        """The Gram matrix :math:`K(C, C)` of the centers."""
        return _gram(self.kernel, self.centers, self.centers)

    def squared_norm(self) -> float:
        """:math:`\\|f\\|^2 = a^\\top K(C, C)\\, a`, checked to be non-negative.

        Tiny negative values from floating-point round-off are set to zero.

        Raises
        ------
        ValueError
            If :math:`a^\\top K a` is clearly negative, which shows that the
            kernel is not positive definite on these centers.
        """
        q, e = self._squared_norm_scaled()
        return _ldexp(q, e, "the squared norm a^T K a")

    def _squared_norm_scaled(self) -> tuple[float, int]:
        """``(q, e)`` with ``||f||^2 = q * 2**e``, ``q >= 0`` checked, computed at unit scale."""
        K = self.gram()
        ca, ck = _pow2(self.coef), _pow2(K)
        a, Ks = self.coef / ca, K / ck
        q = float(a @ Ks @ a)
        scale = float(np.abs(a) @ np.abs(Ks) @ np.abs(a))
        tol = 1e3 * np.finfo(float).eps * max(scale, np.finfo(float).tiny) * max(1, self.n_centers)
        e = 2 * (math.frexp(ca)[1] - 1) + math.frexp(ck)[1] - 1
        if q < -tol:
            qv = math.ldexp(q, e) if abs(e) < 1000 else q
            raise ValueError(
                f"a^T K a = {qv:.3g} < 0: the kernel is not positive definite on these centers, "
                "so it does not define an RKHS norm"
            )
        return max(q, 0.0), e

    def norm(self) -> float:
        """The RKHS norm :math:`\\|f\\| = \\sqrt{a^\\top K(C, C)\\, a}` (computed scale-safely)."""
        q, e = self._squared_norm_scaled()
        if e % 2:  # sqrt(q 2^e) = sqrt(2 q) 2^((e - 1) / 2)
            q, e = 2.0 * q, e - 1
        return _ldexp(math.sqrt(q), e // 2, "the norm ||f||")

    def distance(self, other: "KernelExpansion") -> float:
        """The RKHS distance :math:`\\|f - g\\|`."""
        return (self - other).norm()

    def simplify(self, tol: float = 0.0) -> "KernelExpansion":
        """Merge identical centers and drop coefficients with ``|a_i| <= tol``.

        Merging changes the representation, never the function.  Dropping
        non-zero coefficients (``tol > 0``) changes the function by at most
        what the dropped terms contribute.
        """
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not np.isfinite(tol) or tol < 0:
            raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
        C, a = _merge(self.centers, self.coef)
        keep = np.abs(a) > tol
        return KernelExpansion(self.kernel, C[keep], a[keep])

    # ------------------------------------------------------------ vector space
    def __add__(self, other: Any) -> "KernelExpansion":
        if not isinstance(other, KernelExpansion):
            return NotImplemented
        g = self._check_other(other, "addition")
        C, a = _merge(np.vstack([self.centers, g.centers]), np.concatenate([self.coef, g.coef]))
        return KernelExpansion(self.kernel, C, a)

    def __neg__(self) -> "KernelExpansion":
        return KernelExpansion(self.kernel, self.centers, -self.coef)

    def __sub__(self, other: Any) -> "KernelExpansion":
        if not isinstance(other, KernelExpansion):
            return NotImplemented
        return self + (-other)

    def __mul__(self, c: Any) -> "KernelExpansion":
        if isinstance(c, KernelExpansion):
            raise TypeError(
                "the product of two kernel expansions is not an element of the span; "
                "use f.inner(g) for the inner product"
            )
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Real):
            return NotImplemented
        return KernelExpansion(self.kernel, self.centers, _check_scalar(c) * self.coef)

    __rmul__ = __mul__

    def __truediv__(self, c: Any) -> "KernelExpansion":
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Real):
            return NotImplemented
        v = _check_scalar(c, "divisor")
        if v == 0.0:
            raise ZeroDivisionError("division of a kernel expansion by zero")
        return KernelExpansion(self.kernel, self.centers, self.coef / v)


# --------------------------------------------------------------------------- projection
#: Reciprocal condition number above which the normal equations are solved by Cholesky.
_CHOLESKY_MIN_RCOND = 1e-8


def _solve_normal_equations(K: np.ndarray, b: np.ndarray, rcond: float | None) -> np.ndarray:
    """Solve ``K w = b`` for a symmetric positive semidefinite ``K``.

    Fast path: a Cholesky factorization, used only when LAPACK's condition estimate
    (``dpocon``) certifies ``K`` as well conditioned (reciprocal condition number
    above ``_CHOLESKY_MIN_RCOND``) and no explicit ``rcond`` was requested.
    Otherwise the SVD-based minimum-norm least-squares solution.
    """
    if rcond is None and K.shape[0] > 0:
        try:
            factor = sla.cho_factor(K, lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            factor = None
        if factor is not None:
            rc, info = sla.lapack.dpocon(factor[0], float(np.linalg.norm(K, 1)), uplo="U")
            if info == 0 and rc > _CHOLESKY_MIN_RCOND:
                return sla.cho_solve(factor, b, check_finite=False)
    return np.linalg.lstsq(K, b, rcond=rcond)[0]


def project(
    target: Any,
    centers: Any,
    *,
    kernel: KernelFunc | None = None,
    rcond: float | None = None,
) -> KernelExpansion:
    """Best approximation of ``target`` in :math:`\\operatorname{span}\\{k(c_1,\\cdot),\\dots,k(c_n,\\cdot)\\}`.

    The orthogonal projection :math:`Pf = \\sum_j w_j k(c_j, \\cdot)` of an
    element ``f`` of the RKHS onto the span is characterised by
    :math:`\\langle f - Pf, k(c_i, \\cdot)\\rangle = 0` for all ``i``, i.e. by
    the normal equations :math:`K w = b` with :math:`K = [k(c_i, c_j)]` and
    :math:`b_i = \\langle f, k(c_i,\\cdot)\\rangle = f(c_i)` (reproducing
    property).  So the projection depends on ``f`` only through its values at
    the centers, and it is also the minimum-norm interpolant of those values:
    ``target`` may be a :class:`KernelExpansion` or the vector of values
    :math:`f(c_1), \\dots, f(c_n)` (then ``kernel`` is required).

    When ``K`` is well conditioned (LAPACK's estimate of its reciprocal
    condition number exceeds 1e-8) the system is solved by a Cholesky
    factorization. Otherwise, or when ``rcond`` is given, it is solved by
    least squares with the SVD (``numpy.linalg.lstsq``), so a singular or
    ill-conditioned ``K`` (repeated centers, a wide Gaussian) is handled
    stably: singular values below ``rcond`` times the largest are treated as
    zero and the minimum-norm coefficient vector is returned.  Every solution of the normal equations gives the same function
    ``Pf``; if ``K`` is singular and the values are not consistent with any
    element of the span, the least-squares solution is returned.

    Near-coincident centers make the exact coefficients large (the span then
    contains approximate derivatives of features), and values and norms
    computed from large cancelling coefficients lose accuracy in proportion
    to ``|w|^T |K| |w|``; centers closer than about ``sqrt(eps)`` times the
    kernel's length scale are numerically indistinguishable and are merged
    in effect by the SVD cut-off.

    Parameters
    ----------
    target : KernelExpansion or array_like of shape (n,)
        The element to project, or its values at the ``n`` centers.
    centers : array_like of shape (n, d)
        The centers :math:`c_j` spanning the subspace.
    kernel : callable, optional
        The kernel.  Required when ``target`` is an array of values; when
        ``target`` is an expansion it defaults to ``target.kernel`` and, if
        given, must be the same kernel.
    rcond : float, optional
        Cut-off ratio for small singular values; giving it forces the SVD
        path. If None, Cholesky for well-conditioned ``K`` and numpy's default
        cut-off otherwise.

    Returns
    -------
    KernelExpansion
        :math:`Pf` on the given centers.

    Raises
    ------
    TypeError
        If ``kernel`` is missing for value input or is not callable, or an
        input is complex or not numeric.
    ValueError
        On mismatched kernels, dimensions or lengths, non-finite input, a
        kernel whose Gram matrix on the centers is not symmetric, more than
        ``MAX_PROJECT_CENTERS`` centers, or coefficients beyond float64.

    Examples
    --------
    >>> import numpy as np
    >>> lin = lambda X, Y: X @ Y.T
    >>> f = KernelExpansion(lin, [[1.0, 1.0]], [1.0])   # f(x) = x1 + x2
    >>> Pf = project(f, [[1.0, 0.0]])                     # onto span{x1}
    >>> np.round(Pf.coef, 6)
    array([1.])
    """
    C = check_array(centers, "centers")
    if C.shape[0] > MAX_PROJECT_CENTERS:
        raise ValueError(
            f"centers has {C.shape[0]} points; the normal equations of the projection are an O(n^3) solve "
            f"and n exceeds the limit MAX_PROJECT_CENTERS = {MAX_PROJECT_CENTERS}"
        )
    if isinstance(target, KernelExpansion):
        if kernel is None:
            kernel = target.kernel
        elif not same_kernel(_check_kernel(kernel), target.kernel):
            raise ValueError("kernel differs from target.kernel; the projection needs one kernel")
        if C.shape[1] != target.n_features:
            raise ValueError(
                f"centers must have {target.n_features} features like the target's centers; got shape {C.shape}"
            )
        b = target(C)
    else:
        if kernel is None:
            raise TypeError("kernel is required when target is an array of function values")
        _check_kernel(kernel)
        b = check_array(target, "target", ndim=1)
        if b.shape[0] != C.shape[0]:
            raise ValueError(
                "target must hold one value per center; "
                f"got target.shape={b.shape} and centers.shape={C.shape}"
            )
    if rcond is not None:
        if isinstance(rcond, bool) or not isinstance(rcond, numbers.Real):
            raise TypeError(f"rcond must be a number in [0, 1), got {type(rcond).__name__} {rcond!r}")
        if not (0 <= rcond < 1):
            raise ValueError(f"rcond must be a number in [0, 1), got {rcond!r}")
    K = _gram(kernel, C, C)
    try:
        check_symmetric(K, "kernel(centers, centers)")
    except ValueError as exc:
        raise ValueError(f"{exc}: the kernel must satisfy k(x, y) = k(y, x) to define a projection") from None
    cb, ck = _pow2(b), _pow2(K)  # K w = b is linear: solve at unit scale (exact power-of-two rescaling)
    with np.errstate(over="ignore", invalid="ignore"):
        w = _solve_normal_equations(K / ck, b / cb, rcond) * (cb / ck)
    if not np.all(np.isfinite(w)):
        raise ValueError(
            "the projection's coefficients overflow float64: target values too large for this kernel "
            "(or the kernel matrix of the centers too small); rescale target"
        )
    return KernelExpansion(kernel, C, w)
