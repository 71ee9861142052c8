"""scikit-learn's parameter protocol, written once for every estimator of the package.

``get_params`` / ``set_params`` / ``repr`` read the parameters from the ``__init__``
signature, as scikit-learn's ``BaseEstimator`` does (scikit-learn is not a runtime
dependency, so the estimators cannot inherit from it).
"""

from __future__ import annotations

import inspect
from typing import Any


class ParamsMixin:
    """Parameters are the ``__init__`` arguments, stored unchanged under their own names."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this estimator (the ``__init__`` arguments)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Any:
        """Set parameters by name; returns ``self``.

        Raises
        ------
        ValueError
            If a name is not a parameter of this estimator.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; valid parameters: {valid}"
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        """The parameters that differ from their defaults; callables without an address."""
        sig = inspect.signature(type(self).__init__)
        parts = []
        for name, value in self.get_params().items():
            default = sig.parameters[name].default
            if default is value or (isinstance(default, (int, float, str)) and default == value
                                    and type(default) is type(value)):
                continue
            if callable(value) and hasattr(value, "__qualname__"):  # stable across runs
                parts.append(f"{name}=<{type(value).__name__} {value.__qualname__}>")
            else:
                parts.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"
