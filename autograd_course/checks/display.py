"""One output per call: the rich display in Jupyter (with its usage record inside), plain text elsewhere."""

from __future__ import annotations

import sys
from typing import Any

from autograd_course.protocol import USAGE_MIME

__all__ = ["in_jupyter", "show"]


def in_jupyter() -> bool:
    """True inside a Jupyter kernel (IPython with a kernel attached)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython else None
    return shell is not None and hasattr(shell, "kernel")


def show(view: Any, usage: dict | None = None) -> None:
    """Display a verdict or note once; a usage record travels in the same output, invisible."""
    if not in_jupyter():
        print(view.text())
        return
    from IPython.display import display

    if usage is None:
        display(view)
        return
    bundle = dict(view._repr_mimebundle_())
    bundle[USAGE_MIME] = usage
    display(bundle, raw=True)
