"""ktheory: the companion package of *Kernel Theory*, an executable textbook.

One module per idea of the book; import what a chapter uses, for example::

    from ktheory.kernels import gaussian_kernel, gram_matrix
    from ktheory.rkhs import KernelExpansion
    from ktheory.svm import SVC
    from ktheory.alignment import cka

Submodules are not imported eagerly, so ``import ktheory`` stays cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
