"""What every estimator of the package shares, on top of scikit-learn's ``BaseEstimator``.

* :class:`KTheoryEstimator` -- ``BaseEstimator`` (``get_params``/``set_params``, cloning,
  pickling, the HTML display, tags) with one change: a parameter that is a function is
  shown by name, without its memory address, so that a printed estimator (and the test ids
  scikit-learn's ``parametrize_with_checks`` derives from it) is the same in every process.
* :class:`KTheoryClassifierMixin` -- scikit-learn's ``ClassifierMixin`` whose ``score``
  checks ``y`` first (:func:`ktheory._validation.accuracy`): a ``y`` of the wrong length is
  reported naming ``y``, ``y=None`` says that ``y`` is required, and labels held in an
  object array compare with the predictions as they are (scikit-learn's
  ``accuracy_score`` refuses them as a "mix of unknown and binary targets").
* :func:`atomic_fit` -- a ``fit`` that raises leaves the estimator as it was: whatever it
  set or replaced (``n_features_in_`` from ``validate_data(reset=True)``, the kernel's
  resolved parameters, the fitted attributes) is put back before the exception leaves.

Estimators combine scikit-learn's mixins with it, mixins first, as scikit-learn requires::

    class SVC(KTheoryClassifierMixin, KTheoryEstimator): ...
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from sklearn.base import BaseEstimator, ClassifierMixin

from ._validation import accuracy

__all__ = ["KTheoryClassifierMixin", "KTheoryEstimator", "atomic_fit"]

F = TypeVar("F", bound=Callable[..., Any])


class KTheoryEstimator(BaseEstimator):
    """scikit-learn's ``BaseEstimator`` with a repr that is stable across processes."""

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        params = self.get_params(deep=False)
        if not any(_is_function(v) for v in params.values()):
            return super().__repr__(N_CHAR_MAX=N_CHAR_MAX)
        # scikit-learn would print "<function f at 0x7f...>": an address that differs between
        # processes (and between pytest-xdist workers, which must collect the same test ids).
        sig = inspect.signature(type(self).__init__)
        parts = []
        for name, value in params.items():
            default = sig.parameters[name].default
            if value is default or (_is_plain(default) and type(value) is type(default)
                                    and value == default):
                continue
            if _is_function(value):
                parts.append(f"{name}=<{type(value).__name__} {value.__qualname__}>")
            else:
                parts.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


class KTheoryClassifierMixin(ClassifierMixin):
    """scikit-learn's ``ClassifierMixin`` (tags, ``_estimator_type``) with a ``score`` that
    checks ``y`` before comparing (see the module docstring)."""

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Test inputs (for a precomputed kernel, the kernel values against the training
            samples).
        y : array_like of shape (n_samples,)
            True labels (a column vector is ravelled with a ``DataConversionWarning``).
        sample_weight : array_like of shape (n_samples,), optional
            Weights; scikit-learn's ``accuracy_score`` computes the weighted mean.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            ``y`` is None, not 1-D, or not one label per row of ``X``; and as ``predict``.
        """
        if sample_weight is not None:
            return float(super().score(X, y, sample_weight=sample_weight))
        return accuracy(self.predict(X), y)


def _is_function(value: Any) -> bool:
    return callable(value) and not isinstance(value, type) and hasattr(value, "__qualname__")


def _is_plain(value: Any) -> bool:
    return isinstance(value, (bool, int, float, str)) or value is None


def atomic_fit(fit: F) -> F:
    """Decorate ``fit``: if it raises, the estimator's attributes are restored to what they
    were before the call (a shallow snapshot of ``__dict__``; ``fit`` replaces arrays, it
    never writes into the old ones)."""

    @functools.wraps(fit)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        saved = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper  # type: ignore[return-value]
