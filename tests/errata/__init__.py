"""Errata of the seed notes as executable checks (see ``tests/test_errata.py``).

Each module ``chNN.py`` defines ``ERRATA``: a dict from an erratum id (the ``(err-...)=``
target in ``book/errata/chNN.md``) to a function of no arguments that evaluates the
seed's form and the corrected form **on the same inputs** and returns the pair
``(seed_form_holds, corrected_form_holds)`` as booleans. The test asserts
``(False, True)``: the seed's form fails and the correction holds.
"""
