"""A stand-in that hides numba: with this folder first on PYTHONPATH, ``import numba``
fails as on a machine without it (``make test-no-numba``)."""

raise ImportError("numba is hidden by tests/_no_numba (make test-no-numba)")
