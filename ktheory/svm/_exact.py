"""The hard-margin SVM dual solved exactly, for tiny problems (chapter 7).

The hard-margin dual

.. math::

    \\max_{\\alpha \\ge 0} \\; \\sum_p \\alpha_p
    - \\tfrac12 \\sum_{p,q} \\alpha_p \\alpha_q d_p d_q K(x_p, x_q)
    \\quad \\text{s.t.} \\quad \\sum_p \\alpha_p d_p = 0

is a convex quadratic programme with inequality constraints; setting its
gradient to zero is *not* a method for solving it. For a handful of points it
can be solved exactly by **enumerating supports**: for a candidate set ``P``
of support vectors the Karush-Kuhn-Tucker (KKT) conditions reduce to the
linear system

.. math::

    \\begin{bmatrix} Q_{PP} & d_P \\\\ d_P^\\top & 0 \\end{bmatrix}
    \\begin{bmatrix} \\alpha_P \\\\ b \\end{bmatrix}
    = \\begin{bmatrix} \\mathbf 1 \\\\ 0 \\end{bmatrix},
    \\qquad Q_{pq} = d_p d_q K(x_p, x_q),

and ``P`` is optimal exactly when the solution has ``alpha_P >= 0`` and every
point satisfies ``d_i f(x_i) >= 1``. Conic Caratheodory guarantees an optimal
``alpha`` whose support makes the system non-singular, so the enumeration
(smallest supports first) always finds the optimum of a separable problem,
and finds none for a non-separable one. All arithmetic is done in sympy:
rational input gives rational output, surds stay surds.

The module stays one file although it is long (about 800 lines): it is one algorithm, the
enumeration of supports, and the exact-arithmetic helpers it needs (conversion to sympy,
signs of algebraic numbers, simplification) serve nothing else.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union

import numpy as np
import sympy as sp

__all__ = ["HardMarginSolution", "hard_margin_dual_exact", "to_exact"]

KernelSpec = Union[str, Callable[[tuple, tuple], Any]]

_NAMED_KERNELS = ("linear", "poly", "rbf", "precomputed")

#: Most candidate support sets :func:`hard_margin_dual_exact` enumerates (2**17; about
#: n = 17 samples for a full-rank kernel, many more for a low-rank one). Each candidate
#: costs a float screen (~0.1 ms) or an exact solve (ms to s), so the limit keeps the
#: worst case (non-separable data) to minutes, not hours.
MAX_SUPPORTS = 1 << 17

#: Most entries :func:`to_exact` converts (one sympy number each, about 1 KB and
#: several microseconds apiece): 10**6 entries take about a GB and tens of seconds.
MAX_EXACT_ENTRIES = 10**6


def _n_rows(X: Any) -> int | None:
    """Number of rows of ``X`` without converting it (None if it cannot be told)."""
    shape = getattr(X, "shape", None)
    if shape is not None:
        try:
            return int(shape[0]) if len(shape) >= 1 else None
        except (TypeError, ValueError):
            return None
    try:
        return len(X)
    except TypeError:
        return None


def _n_candidates(n: int, max_size: int) -> int:
    """Number of subsets of size 2..max_size of n points (an upper bound on the candidates)."""
    return sum(math.comb(n, m) for m in range(2, max_size + 1))


def _exact_rank(K: sp.Matrix) -> int | None:
    """Exact rank of ``K`` (rational, algebraic or exp-of-rational entries), None if undecidable."""
    from sympy.polys.constructor import construct_domain
    from sympy.polys.matrices import DomainMatrix

    n = K.rows
    entries = list(K)
    try:
        dom, elems = construct_domain(entries, extension=True)
        if dom.is_QQ or dom.is_ZZ or dom.is_AlgebraicField:
            return int(DomainMatrix([elems[i * n:(i + 1) * n] for i in range(n)], (n, n), dom).to_field().rank())
        sub = _exp_substitution(entries)
        if sub is not None:
            dom, elems = construct_domain(sub[0], field=True)
            if not dom.is_EX:
                return int(DomainMatrix([elems[i * n:(i + 1) * n] for i in range(n)], (n, n), dom).rank())
    except Exception:  # pragma: no cover - construct_domain gives up on exotic input
        return None
    return None


# ---------------------------------------------------------------------------
# exact conversion
# ---------------------------------------------------------------------------
def _to_exact_scalar(v: Any, name: str) -> sp.Expr:
    """Convert one number to an exact sympy number (floats via their shortest decimal repr)."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must contain numbers, got a boolean {v!r}")
    if isinstance(v, (str, bytes)):
        raise TypeError(f"{name} must contain numbers, got a string {v!r}")
    if isinstance(v, sp.Basic):
        e = sp.sympify(v)
        if e.free_symbols:
            raise TypeError(f"{name} must contain numbers, got the symbolic expression {e}")
        if e.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            raise ValueError(f"{name} contains NaN or infinity ({e})")
        if e.is_real is False:
            raise TypeError(f"{name} must contain real numbers, got {e}")
        return e
    if isinstance(v, (numbers.Integral, np.integer)):
        return sp.Integer(int(v))
    if isinstance(v, Fraction):
        return sp.Rational(v.numerator, v.denominator)
    if isinstance(v, (numbers.Real, np.floating)):
        f = float(v)
        if not np.isfinite(f):
            raise ValueError(f"{name} contains NaN or infinity ({f!r})")
        # the shortest decimal string that round-trips: 0.1 -> 1/10, not 3602879701896397/36028797018963968
        return sp.Rational(repr(f))
    if isinstance(v, (numbers.Complex, np.complexfloating)):
        raise TypeError(f"{name} must contain real numbers, got the complex number {v!r}")
    raise TypeError(f"{name} must contain numbers, got {type(v).__name__} {v!r}")


def to_exact(X: Any, name: str = "X") -> sp.Matrix:
    """Convert a 2-D array-like of numbers to an exact sympy ``Matrix``.

    Integers and ``fractions.Fraction`` become sympy Rationals, sympy numbers
    (``sp.sqrt(2)``, ``sp.Rational(1, 3)``) are kept, and Python/numpy floats are
    read through their shortest round-trip decimal string, so ``0.1`` becomes
    ``1/10``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        The numbers.
    name : str
        Name of the argument, used in error messages.

    Returns
    -------
    sympy.Matrix
        The exact matrix.

    Raises
    ------
    TypeError
        If an entry is not a real number (string, boolean, complex, symbol).
    ValueError
        If ``X`` is not 2-D, is empty, is ragged, contains NaN or infinity, or
        has more than ``MAX_EXACT_ENTRIES`` (``10**6``) entries (refused before
        converting any).

    Examples
    --------
    >>> to_exact([[0.5, 1], [2, 0.1]])
    Matrix([
    [1/2,    1],
    [  2, 1/10]])
    """
    if X is None:
        raise TypeError(f"{name} must be an array, got None")
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got a string {X!r}")
    shape = getattr(X, "shape", None)
    if shape is not None and not isinstance(shape, tuple):
        shape = None
    if shape is not None and all(isinstance(s, numbers.Integral) for s in shape):
        size = math.prod(int(s) for s in shape)
        if size > MAX_EXACT_ENTRIES:
            raise ValueError(
                f"{name} has {size:,} entries (shape {tuple(shape)}); to_exact converts at most "
                f"MAX_EXACT_ENTRIES={MAX_EXACT_ENTRIES:,} (one sympy number each; more would take "
                "gigabytes and minutes)"
            )
    if isinstance(X, sp.MatrixBase):
        rows = [list(X.row(i)) for i in range(X.rows)]
        if X.rows == 0 or X.cols == 0:
            raise ValueError(f"{name} is empty (shape {X.shape}); at least one sample and one feature are needed")
    else:
        try:
            arr = np.asarray(X, dtype=object)
        except ValueError as exc:  # ragged
            raise ValueError(f"{name} must be a rectangular 2-D array: {exc}") from None
        if arr.ndim == 1 and any(isinstance(v, (list, tuple, np.ndarray)) for v in arr.tolist()):
            raise ValueError(f"{name} must be a rectangular 2-D array; its rows have different lengths")
        if arr.ndim != 2:
            hint = (
                f" Reshape it with {name}.reshape(-1, 1) for a single feature or "
                f"{name}.reshape(1, -1) for a single sample."
                if arr.ndim == 1
                else ""
            )
            raise ValueError(
                f"{name} must be a 2-D array of shape (n_samples, n_features); "
                f"got a {arr.ndim}-D array of shape {arr.shape}.{hint}"
            )
        if arr.size == 0:
            raise ValueError(f"{name} is empty (shape {arr.shape}); at least one sample and one feature are needed")
        if arr.size > MAX_EXACT_ENTRIES:
            raise ValueError(
                f"{name} has {arr.size:,} entries (shape {arr.shape}); to_exact converts at most "
                f"MAX_EXACT_ENTRIES={MAX_EXACT_ENTRIES:,}"
            )
        rows = arr.tolist()
        if any(isinstance(v, (list, tuple, np.ndarray)) for row in rows for v in row):
            raise ValueError(f"{name} must be a rectangular 2-D array of numbers (found a nested sequence)")
    return sp.Matrix([[_to_exact_scalar(v, name) for v in row] for row in rows])


def _labels(y: Any, n: int) -> tuple[list[int], tuple[Any, Any]]:
    """Map two label values to -1/+1 (sorted order: classes[1] is +1, as in scikit-learn)."""
    if y is None:
        raise TypeError("y must be an array of class labels, got None")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"y must be a 1-D array of class labels, got a string {y!r}")
    ya = np.asarray(y, dtype=object)
    if ya.ndim != 1:
        raise ValueError(f"y must be a 1-D array of shape (n_samples,); got shape {ya.shape}")
    if ya.shape[0] != n:
        raise ValueError(f"X and y have different numbers of samples: X has {n} rows, y has {ya.shape[0]} labels")
    vals = ya.tolist()
    for v in vals:
        if isinstance(v, float) and not np.isfinite(v):
            raise ValueError("y contains NaN or infinity")
    try:
        classes = sorted(set(vals))
    except TypeError:
        raise TypeError("y must hold labels of one comparable type (e.g. all numbers or all strings)") from None
    if len(classes) != 2:
        raise ValueError(
            f"y must contain exactly two classes for a binary SVM; got {len(classes)} distinct "
            f"label(s): {classes[:5]!r}"
        )
    d = [1 if v == classes[1] else -1 for v in vals]
    return d, (classes[0], classes[1])


# ---------------------------------------------------------------------------
# kernels on exact numbers
# ---------------------------------------------------------------------------
def _exact_kernel(kernel: KernelSpec, degree: Any, gamma: Any, coef0: Any, n_features: int) -> Callable:
    if callable(kernel):
        return kernel
    if not isinstance(kernel, str) or kernel not in _NAMED_KERNELS:
        raise ValueError(f"kernel must be one of {_NAMED_KERNELS} or a callable k(x, z); got {kernel!r}")
    if kernel == "precomputed":
        return None  # type: ignore[return-value]
    if kernel == "linear":
        return lambda x, z: sum((a * b for a, b in zip(x, z)), sp.Integer(0))
    g = sp.Rational(1, n_features) if gamma is None else _to_exact_scalar(gamma, "gamma")
    if not (g > 0):
        raise ValueError(f"gamma must be > 0, got {gamma!r}")
    if kernel == "rbf":
        return lambda x, z: sp.exp(-g * sum(((a - b) ** 2 for a, b in zip(x, z)), sp.Integer(0)))
    # poly
    if isinstance(degree, bool) or not isinstance(degree, (numbers.Integral, np.integer)) or int(degree) < 1:
        raise ValueError(f"degree must be a positive integer, got {degree!r}")
    c0 = _to_exact_scalar(coef0, "coef0")
    deg = int(degree)
    return lambda x, z: sp.expand((g * sum((a * b for a, b in zip(x, z)), sp.Integer(0)) + c0) ** deg)


def _algebraic(e: sp.Expr) -> bool:
    """Structural test: built from rationals with +, *, and rational powers (no exp, pi, ...)."""
    if e.atoms(sp.Function) or e.atoms(sp.NumberSymbol):
        return False
    return all(p.exp.is_Rational for p in e.atoms(sp.Pow))


def _simplify(e: sp.Expr) -> sp.Expr:
    """Cheap canonical form: rationals as they are, surds rationalized, anything else over one denominator."""
    e = sp.sympify(e)
    if e.is_Rational:
        return e
    if _algebraic(e):
        return sp.radsimp(sp.expand(e))
    sub = _exp_substitution([e])
    if sub is not None:
        (e2,), t, back = sub
        return sp.cancel(e2).xreplace({t: back})
    return e  # other transcendental values are left as sympy built them


def _exp_substitution(entries: list) -> tuple[list, sp.Symbol, sp.Expr] | None:
    """Write exp(q), q rational, as t**(q L) with t = exp(1/L): exact arithmetic in QQ(t).

    ``e`` is transcendental (Lindemann), so QQ(t) is a field of rational functions and
    zero tests there are exact. Returns None if some entry has other transcendental parts.
    """
    atoms: set = set()
    for e in entries:
        atoms |= sp.sympify(e).atoms(sp.exp)
    if not atoms or any(not a.args[0].is_Rational for a in atoms):
        return None
    L = sp.ilcm(*[a.args[0].q for a in atoms]) if len(atoms) > 1 else atoms.pop().args[0].q
    t = sp.Dummy("t", positive=True)
    rep = {}
    for e in entries:
        for a in sp.sympify(e).atoms(sp.exp):
            rep[a] = t ** int(a.args[0] * L)
    new = [sp.sympify(e).xreplace(rep) for e in entries]
    if any(x.atoms(sp.Function) or x.atoms(sp.NumberSymbol) for x in new):
        return None
    return new, t, sp.exp(sp.Rational(1, L))


def _is_zero(e: sp.Expr) -> bool:
    return _sign(e) == 0


def _sign(e: sp.Expr) -> int:
    """Sign of a real constant expression (-1, 0, 1).

    Rationals and surds are decided exactly (a surd expression is rationalized
    and compared with zero). For transcendental values a zero is declared when
    the value vanishes to 200 significant digits.
    """
    e = sp.sympify(e)
    if e.is_Rational:
        return int(sp.sign(e))
    v = sp.N(e, 60)
    if abs(v) > sp.Float("1e-40"):
        return 1 if v > 0 else -1
    if _algebraic(e):
        r = sp.radsimp(sp.expand(e))
        if r == 0:
            return 0
        return _sign_numeric(r)
    return _sign_numeric(e)


def _sign_numeric(e: sp.Expr) -> int:
    v = sp.N(e, 200)
    if abs(v) > sp.Float("1e-180"):
        return 1 if v > 0 else -1
    return 0


# ---------------------------------------------------------------------------
# the solution object
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class HardMarginSolution:
    """Exact solution of a hard-margin SVM dual, as returned by :func:`hard_margin_dual_exact`.

    Attributes
    ----------
    alpha : tuple of sympy.Expr
        The dual variables ``alpha_p >= 0`` (one per training sample).
    support : tuple of int
        Indices ``p`` with ``alpha_p > 0`` (the support vectors used by ``alpha``).
    b : sympy.Expr
        The bias, averaged over the support vectors (all per-vector values agree exactly).
    b_per_support : tuple of sympy.Expr
        ``d_s - sum_p alpha_p d_p K(x_p, x_s)`` for each support vector ``s``.
    d : tuple of int
        The labels mapped to -1/+1.
    classes : tuple
        ``(negative_label, positive_label)``; ``classes[1]`` is mapped to +1.
    gram : sympy.Matrix
        The exact training Gram matrix ``K(x_p, x_q)``.
    w_norm_sq : sympy.Expr
        ``||w||^2 = alpha^T Q alpha`` (equal to ``sum(alpha)`` at the optimum).
    margin : sympy.Expr
        The geometric margin ``1 / ||w||`` (distance from the boundary to the closest points).
    width : sympy.Expr
        The width of the separating slab, ``2 / ||w||``.
    X : sympy.Matrix or None
        The exact training inputs (None for ``kernel="precomputed"``).
    """

    alpha: tuple
    support: tuple
    b: sp.Expr
    b_per_support: tuple
    d: tuple
    classes: tuple
    gram: sp.Matrix
    w_norm_sq: sp.Expr
    margin: sp.Expr
    width: sp.Expr
    X: sp.Matrix | None = None
    _kernel: Callable | None = field(default=None, repr=False, compare=False)

    @property
    def dual_coef(self) -> tuple:
        """``alpha_p d_p`` for every sample (scikit-learn's ``dual_coef_`` holds these for the support)."""
        return tuple(_simplify(a * di) for a, di in zip(self.alpha, self.d))

    def dual_objective(self) -> sp.Expr:
        """The dual objective ``Q(alpha) = sum alpha - alpha^T Q alpha / 2`` at the solution."""
        return _simplify(sum(self.alpha, sp.Integer(0)) - self.w_norm_sq / 2)

    def _kernel_rows(self, X: Any) -> sp.Matrix:
        if self._kernel is None:
            K = to_exact(X, "X")
            if K.cols != len(self.alpha):
                raise ValueError(
                    f"with kernel='precomputed', X must be the kernel between the test points and the "
                    f"{len(self.alpha)} training points, shape (n_test, {len(self.alpha)}); got {K.shape}"
                )
            return K
        Xe = to_exact(X, "X")
        assert self.X is not None
        if Xe.cols != self.X.cols:
            raise ValueError(
                f"X has {Xe.cols} features, but the SVM was trained with {self.X.cols}"
            )
        train = [tuple(self.X.row(p)) for p in range(self.X.rows)]
        return sp.Matrix(
            [[self._kernel(tuple(Xe.row(i)), train[p]) for p in range(len(train))] for i in range(Xe.rows)]
        )

    def decision_function(self, X: Any) -> list:
        """Exact values ``f(x) = sum_p alpha_p d_p K(x_p, x) + b`` for the rows of ``X``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test points (for ``kernel="precomputed"``: the kernel values, shape (n_test, n_train)).

        Returns
        -------
        list of sympy.Expr
            One exact value per row.
        """
        K = self._kernel_rows(X)
        coef = sp.Matrix(self.dual_coef)
        vals = K * coef
        return [_simplify(v + self.b) for v in vals]

    def predict(self, X: Any) -> list:
        """Class labels: ``classes[1]`` where ``f(x) >= 0``, else ``classes[0]``.

        A point exactly on the boundary (``f(x) = 0``, decided exactly) goes to
        ``classes[1]``, as in scikit-learn/libsvm.
        """
        return [self.classes[1] if _sign(v) >= 0 else self.classes[0] for v in self.decision_function(X)]

    def decision_expression(self, symbols: Sequence[sp.Symbol]) -> sp.Expr:
        """The decision function as a sympy expression in the given input symbols.

        Parameters
        ----------
        symbols : sequence of sympy.Symbol
            One symbol per input feature, e.g. ``sp.symbols("x1 x2")``.

        Returns
        -------
        sympy.Expr
            ``sum_p alpha_p d_p K(x_p, x) + b`` expanded in the symbols.
        """
        if self._kernel is None or self.X is None:
            raise ValueError("decision_expression needs the kernel; it is unavailable for kernel='precomputed'")
        syms = tuple(symbols)
        if len(syms) != self.X.cols:
            raise ValueError(f"symbols must have one symbol per feature ({self.X.cols}); got {len(syms)}")
        expr = sum(
            (c * self._kernel(tuple(self.X.row(p)), syms) for p, c in enumerate(self.dual_coef) if c != 0),
            sp.Integer(0),
        )
        return sp.expand(sp.simplify(expr + self.b))

    def weight_vector(self, feature_map: Callable[[tuple], Sequence]) -> sp.Matrix:
        """``w = sum_p alpha_p d_p phi(x_p)`` for an explicit feature map ``phi``.

        Parameters
        ----------
        feature_map : callable
            ``phi(x)`` taking a tuple of exact numbers and returning a sequence (the feature vector).

        Returns
        -------
        sympy.Matrix
            The weight vector as a column.
        """
        if self.X is None:
            raise ValueError("weight_vector needs the training inputs; unavailable for kernel='precomputed'")
        w = None
        for p, c in enumerate(self.dual_coef):
            v = sp.Matrix(list(feature_map(tuple(self.X.row(p)))))
            w = c * v if w is None else w + c * v
        assert w is not None
        return w.applyfunc(_simplify)


# ---------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------
def _solve_exact(M: sp.Matrix, rhs: sp.Matrix) -> sp.Matrix | None:
    """Exact solution of M z = rhs, or None when M is singular.

    Rational and algebraic entries (surds) are handled in an exact number field
    (sympy's ``DomainMatrix``), where singularity is decided exactly. Other
    entries (e.g. values of ``exp``) fall back to sympy's generic elimination;
    singularity is then decided from a 60-digit evaluation of the determinant.
    """
    from sympy.polys.constructor import construct_domain
    from sympy.polys.matrices import DomainMatrix

    entries = list(M) + list(rhs)
    try:
        dom, elems = construct_domain(entries, extension=True)
    except Exception:  # pragma: no cover - construct_domain gives up on exotic input
        dom = sp.EX
    if dom.is_QQ or dom.is_ZZ or dom.is_AlgebraicField:
        m = M.rows
        Md = DomainMatrix([elems[i * m : (i + 1) * m] for i in range(m)], (m, m), dom).to_field()
        if Md.rank() < m:
            return None
        rd = DomainMatrix([[e] for e in elems[m * m :]], (m, 1), dom).to_field()
        z = Md.lu_solve(rd).to_Matrix()
        return z.applyfunc(_simplify)
    sub = _exp_substitution(entries)
    if sub is not None:
        new, t, back = sub
        try:
            dom, elems = construct_domain(new, field=True)
        except Exception:  # pragma: no cover
            dom = sp.EX
        if not dom.is_EX:
            m = M.rows
            Md = DomainMatrix([elems[i * m : (i + 1) * m] for i in range(m)], (m, m), dom)
            if Md.rank() < m:
                return None
            rd = DomainMatrix([[e] for e in elems[m * m :]], (m, 1), dom)
            z = Md.lu_solve(rd).to_Matrix()
            return z.applyfunc(lambda v: sp.cancel(v).xreplace({t: back}))
    det = M.det(method="berkowitz")
    if abs(sp.N(det, 60)) < sp.Float("1e-45") and (det == 0 or det.equals(0) is not False):
        return None
    return M.LUsolve(rhs).applyfunc(_simplify)


def hard_margin_dual_exact(
    X: Any,
    y: Any,
    kernel: KernelSpec = "linear",
    *,
    degree: int = 3,
    gamma: Any = None,
    coef0: Any = 0,
    max_samples: int = 16,
    screen: bool = True,
) -> HardMarginSolution:
    """Solve the hard-margin SVM dual exactly by enumerating supports.

    For each candidate support ``P`` (smallest first, both classes present) the
    KKT system ``[[Q_PP, d_P], [d_P^T, 0]] [alpha_P; b] = [1; 0]`` is solved in
    exact arithmetic; the first ``P`` whose solution has ``alpha_P >= 0`` and
    satisfies ``d_i f(x_i) >= 1`` for every sample is returned. The KKT
    conditions are sufficient for this convex problem, so the result is
    certified optimal.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Training inputs: ints, ``fractions.Fraction``, sympy numbers
        (``sp.sqrt(2)``) or floats (read as their shortest decimal, ``0.1 -> 1/10``).
        With ``kernel="precomputed"``, the exact Gram matrix, shape (n_samples, n_samples).
    y : array_like of shape (n_samples,)
        Exactly two distinct label values, any comparable type (``-1/+1``,
        ``0/1``, ``"a"/"b"``). As in scikit-learn, the larger label (in sorted
        order) is mapped to ``d = +1`` and the smaller to ``d = -1``.
    kernel : {"linear", "poly", "rbf", "precomputed"} or callable
        ``"linear"``: ``<x, z>``; ``"poly"``: ``(gamma <x, z> + coef0)^degree``;
        ``"rbf"``: ``exp(-gamma ||x - z||^2)``; a callable ``k(x, z)`` receives
        two tuples of exact sympy numbers and must return an exact sympy scalar.
        Rational and algebraic kernel values (surds) are handled in an exact
        number field; values ``exp(q)`` with rational ``q`` (the ``"rbf"``
        kernel on rational data) in the field of rational functions of
        ``exp(1/L)``, which is exact because ``e`` is transcendental. Other
        transcendental values fall back to generic sympy elimination (slow, and
        zero is then decided to 200 significant digits).
    degree : int
        Degree of the ``"poly"`` kernel.
    gamma : number or None
        Scale of ``"poly"`` and ``"rbf"``; None means ``1 / n_features`` (scikit-learn's ``"auto"``).
    coef0 : number
        Constant of the ``"poly"`` kernel.
    max_samples : int
        Refuse problems with more samples than this (the enumeration is
        exponential), before any conversion. Independently, problems whose
        enumeration would visit more than ``MAX_SUPPORTS`` (``2**17``)
        candidate support sets are refused with the count: supports larger
        than ``rank(K) + 1`` are singular and not counted, so low-rank
        kernels (linear in few dimensions) admit more samples.
    screen : bool
        Skip supports whose floating-point solution is clearly infeasible
        before the exact check (much faster; every returned answer is still
        verified exactly). With False every support is solved exactly.

    Returns
    -------
    HardMarginSolution
        ``alpha``, ``support``, ``b`` (averaged over the support vectors), ``margin``,
        and exact ``decision_function`` / ``decision_expression`` / ``predict``.

    Raises
    ------
    ValueError
        Wrong shapes, NaN/inf, not exactly two classes, a non-symmetric or
        non-positive-semidefinite kernel matrix, too many samples or candidate
        supports (the message gives the size and the limit), or data that are
        not separable in the kernel's feature space.
    TypeError
        Non-numeric input or a kernel that is neither a known name nor callable.

    Examples
    --------
    The XOR problem with ``K(x, z) = (1 + <x, z>)^2``:

    >>> sol = hard_margin_dual_exact([[-1, -1], [-1, 1], [1, -1], [1, 1]], [-1, 1, 1, -1],
    ...                              kernel="poly", degree=2, gamma=1, coef0=1)
    >>> sol.alpha, sol.b
    ((1/8, 1/8, 1/8, 1/8), 0)
    >>> import sympy as sp
    >>> sol.decision_expression(sp.symbols("x1 x2"))
    -x1*x2
    """
    if isinstance(max_samples, bool) or not isinstance(max_samples, numbers.Integral):
        raise TypeError(f"max_samples must be an integer >= 2, got {type(max_samples).__name__} {max_samples!r}")
    if max_samples < 2:
        raise ValueError(f"max_samples must be an integer >= 2, got {max_samples!r}")
    if not callable(kernel) and not isinstance(kernel, str):
        raise TypeError(f"kernel must be a name {_NAMED_KERNELS} or a callable k(x, z); got {type(kernel).__name__}")
    n0 = _n_rows(X)
    if n0 is not None and n0 > max_samples:  # up front, before converting anything
        raise ValueError(
            f"X has {n0} samples; the exact solver enumerates supports (up to 2^n of them) and accepts at most "
            f"max_samples={max_samples}. Use ktheory.svm.SVC for larger problems."
        )
    Xe = to_exact(X, "X")
    n = Xe.rows
    d, classes = _labels(y, n)
    if n > max_samples:
        raise ValueError(
            f"X has {n} samples; the exact solver enumerates supports (up to 2^n of them) and accepts at most "
            f"max_samples={max_samples}. Use ktheory.svm.SVC for larger problems."
        )
    kfun = _exact_kernel(kernel, degree, gamma, coef0, Xe.cols)
    if kfun is None:  # precomputed
        if Xe.rows != Xe.cols:
            raise ValueError(f"with kernel='precomputed', X must be a square Gram matrix; got shape {Xe.shape}")
        K = Xe
        Xtrain = None
    else:
        rows = [tuple(Xe.row(i)) for i in range(n)]
        K = sp.zeros(n, n)
        for i in range(n):
            for j in range(i, n):
                v = kfun(rows[i], rows[j])
                try:
                    v = sp.sympify(v)
                except (sp.SympifyError, TypeError):
                    raise TypeError(f"the kernel must return a sympy number; got {type(v).__name__} {v!r}") from None
                if getattr(v, "free_symbols", None):
                    raise TypeError(f"the kernel returned a non-numeric value {v}")
                K[i, j] = v
                if i != j:
                    w = sp.sympify(kfun(rows[j], rows[i]))
                    if w != v and not _is_zero(w - v):
                        raise ValueError(
                            f"the kernel is not symmetric: k(x_{i}, x_{j}) = {v} but k(x_{j}, x_{i}) = {w}"
                        )
                    K[j, i] = v
        Xtrain = Xe
    # symmetric and PSD
    for i in range(n):
        for j in range(i + 1, n):
            if K[i, j] != K[j, i] and not _is_zero(K[i, j] - K[j, i]):
                raise ValueError(f"the kernel matrix must be symmetric; K[{i},{j}] = {K[i, j]} != K[{j},{i}] = {K[j, i]}")
    try:
        # floats of K / max|K| (exact division first): scale-free, so that entries near
        # 1e±400 (exact input scaled by 10**200) neither overflow nor underflow. The PSD
        # test and the float screen below are invariant under this scaling.
        kmax = max((abs(e) for e in K), key=lambda e: sp.N(e, 30))
        Kn = K if _sign(kmax) == 0 else K / kmax
        Kf = np.array(Kn.evalf(30).tolist(), dtype=float)
    except TypeError:
        raise ValueError("the kernel matrix must be real; it has complex or non-numeric entries") from None
    if not np.all(np.isfinite(Kf)):
        raise ValueError("the kernel matrix contains non-finite or complex values")
    eig = np.linalg.eigvalsh(Kf)
    scale = max(float(np.max(np.abs(eig))), 1e-300)
    if eig[0] < -1e-10 * scale:
        raise ValueError(
            f"the kernel matrix must be positive semidefinite (the dual is then a convex problem); "
            f"its smallest eigenvalue is {eig[0]:.3g}"
        )
    dv = np.array(d, dtype=float)
    Qf = Kf * np.outer(dv, dv)
    Kd = sp.Matrix(n, n, lambda i, j: K[i, j] * d[i] * d[j])

    # Supports that make the KKT matrix exactly singular are skipped without solving
    # (the exact solve would reject them anyway, so the answer is unchanged):
    # rank([[Q_PP, d_P], [d_P^T, 0]]) <= rank(K) + 2 < |P| + 1 when |P| > rank(K) + 1,
    # and two samples with the same row of K (duplicates) give two proportional rows.
    rank = _exact_rank(K)
    max_size = n if rank is None else min(n, rank + 1)
    count = _n_candidates(n, max_size)
    if count > MAX_SUPPORTS:
        raise ValueError(
            f"the exact solver would enumerate up to {count:,} candidate support sets for n={n} samples "
            f"(supports of 2..{max_size} points"
            + ("" if rank is None else f"; the kernel matrix has rank {rank}")
            + f"), more than the limit MAX_SUPPORTS={MAX_SUPPORTS:,}; that could run for hours. "
            "Use fewer samples or ktheory.svm.SVC."
        )
    twin = [[j for j in range(i) if all(K[i, k] == K[j, k] for k in range(n))] for i in range(n)]

    def candidates():
        for size in range(2, max_size + 1):
            for P in itertools.combinations(range(n), size):
                if any(d[i] > 0 for i in P) and any(d[i] < 0 for i in P):
                    if any(j in P for i in P for j in twin[i]):
                        continue
                    yield P

    tol = 1e-7
    found = None
    for P in candidates():
        m = len(P)
        idx = list(P)
        if screen:
            Mf = np.zeros((m + 1, m + 1))
            Mf[:m, :m] = Qf[np.ix_(idx, idx)]
            Mf[:m, m] = dv[idx]
            Mf[m, :m] = dv[idx]
            rf = np.r_[np.ones(m), 0.0]
            try:
                cond = np.linalg.cond(Mf)
            except np.linalg.LinAlgError:  # pragma: no cover
                cond = np.inf
            if np.isfinite(cond) and cond < 1e10:
                z = np.linalg.solve(Mf, rf)
                a, bf = z[:m], z[m]
                amax = max(1.0, float(np.max(np.abs(a))))
                if np.min(a) < -tol * amax:
                    continue
                full = np.zeros(n)
                full[idx] = a
                f = Kf @ (full * dv) + bf
                fscale = max(1.0, float(np.max(np.abs(f))))
                if np.min(dv * f) < 1 - tol * fscale:
                    continue
        M = sp.zeros(m + 1, m + 1)
        for r, i in enumerate(idx):
            for c, j in enumerate(idx):
                M[r, c] = Kd[i, j]
            M[r, m] = d[i]
            M[m, r] = d[i]
        rhs = sp.Matrix([1] * m + [0])
        z = _solve_exact(M, rhs)
        if z is None:
            continue
        a_P = list(z[:m])
        if any(_sign(a) < 0 for a in a_P):
            continue
        alpha = [sp.Integer(0)] * n
        for r, i in enumerate(idx):
            alpha[i] = a_P[r]
        b = z[m]
        coef = [alpha[p] * d[p] for p in range(n)]
        ok = True
        for i in range(n):
            if i in P:
                continue  # equality holds by construction
            fi = sum((coef[p] * K[p, i] for p in idx), sp.Integer(0)) + b
            if _sign(d[i] * fi - 1) < 0:
                ok = False
                break
        if ok:
            found = (P, alpha, b)
            break
    if found is None:
        raise ValueError(
            "the data are not separable by a hyperplane in the kernel's feature space "
            "(no support set satisfies the KKT conditions), so the hard-margin SVM has no solution; "
            "use a soft margin (ktheory.svm.SVC with finite C) or a more flexible kernel"
        )
    P, alpha, _b_sys = found
    alpha = [_simplify(a) for a in alpha]
    support = tuple(i for i in range(n) if _sign(alpha[i]) > 0)
    coef = [alpha[p] * d[p] for p in range(n)]
    b_vals = tuple(
        _simplify(d[s] - sum((coef[p] * K[p, s] for p in support), sp.Integer(0))) for s in support
    )
    b = _simplify(sum(b_vals, sp.Integer(0)) / len(b_vals))
    for bv in b_vals:  # exact KKT: every support vector gives the same bias
        if not (bv == b or _is_zero(bv - b)):  # pragma: no cover
            raise ArithmeticError(f"inconsistent bias values {b_vals}")
    a_vec = sp.Matrix(alpha)
    w_norm_sq = _simplify((a_vec.T * Kd * a_vec)[0, 0])
    w_norm = sp.sqrt(w_norm_sq)
    return HardMarginSolution(
        alpha=tuple(alpha),
        support=support,
        b=b,
        b_per_support=b_vals,
        d=tuple(d),
        classes=classes,
        gram=K,
        w_norm_sq=w_norm_sq,
        margin=_simplify(1 / w_norm),
        width=_simplify(2 / w_norm),
        X=Xtrain,
        _kernel=kfun,
    )
