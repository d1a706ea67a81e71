"""One output per call: the rich display in Jupyter (with its usage record inside), plain text elsewhere."""

from __future__ import annotations

import html
import re
import sys
from typing import Any

from autograd_course.protocol import USAGE_MIME

__all__ = ["code_spans", "in_jupyter", "message_html", "show"]

# `name` in a message: Markdown's inline code, which the plain text keeps and the HTML shows as code.
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def in_jupyter() -> bool:
    """True inside a Jupyter kernel (IPython with a kernel attached)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython else None
    return shell is not None and hasattr(shell, "kernel")


def code_spans(escaped: str) -> str:
    """Already escaped HTML with each `span` in backticks turned into a <code> element."""
    return _CODE_SPAN.sub(r"<code>\1</code>", escaped)


def message_html(text: str) -> str:
    """A verdict's or hint's message as HTML: escaped, its `names` in backticks shown as code."""
    return code_spans(html.escape(text))


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
