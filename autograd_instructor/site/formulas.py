"""Math in Markdown cells, marked for the vendored KaTeX: no `$...$` is left for a reader to decode.

nbconvert's Markdown renderer parses `$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]` and LaTeX environments,
then writes them back with their dollars for MathJax, which its `basic` template does not load. Here
each becomes an element holding only the TeX (`<span class="math">` inline, `<div class="math
math-display">` on its own line), and site.js draws it with KaTeX from the site's own static folder.
"""

from __future__ import annotations

from nbconvert.filters.markdown_mistune import IPythonRenderer

__all__ = ["MATH_CLASS", "MathRenderer"]

MATH_CLASS = "math"


class MathRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer, writing math as an element KaTeX renders instead of between dollars."""

    def inline_math(self, body: str) -> str:
        """`$x^2$` or `\\(x^2\\)`: an inline element holding the TeX."""
        return f'<span class="{MATH_CLASS}">{self.escape_html(body.strip())}</span>'

    def block_math(self, body: str) -> str:
        """`$$x^2$$` or `\\[x^2\\]`: a centred display element."""
        return f'<div class="{MATH_CLASS} math-display">{self.escape_html(body.strip())}</div>'

    def latex_environment(self, name: str, body: str) -> str:
        """`\\begin{align}...\\end{align}`: displayed, environment included (KaTeX knows the common ones)."""
        tex = f"\\begin{{{name}}}{body}\\end{{{name}}}"
        return f'<div class="{MATH_CLASS} math-display">{self.escape_html(tex)}</div>'

    def __repr__(self) -> str:
        return "MathRenderer()"
