"""Sphinx extension: the single-page HTML builder (``make pdf``) renders what ``html`` does.

Extensions loaded by Jupyter Book register node visitors for the builder named ``html``
only (``sphinx_jupyterbook_latex``'s ``HiddenCellNode``, myst-nb's ``HideCodeCellNode``,
...), so ``--builder singlehtml`` stops with "unknown node type". When the single-page
builder starts, this copies every ``html`` visitor it lacks.
"""

from __future__ import annotations


def _copy_html_handlers(app) -> None:  # pragma: no cover - exercised by the build
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node_name, pair in handlers.get("html", {}).items():
        single.setdefault(node_name, pair)


def setup(app):  # pragma: no cover - exercised by the build
    app.connect("builder-inited", _copy_html_handlers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
