"""One course notebook as the HTML body of a site page, from its stored outputs (no kernel starts)."""

from __future__ import annotations

import copy
import html
import re
from dataclasses import dataclass, field
from functools import cache

import jinja2
import nbformat
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import MarkdownWithMath
from nbconvert.preprocessors import TagRemovePreprocessor

from autograd_course.checks.display import code_spans
from autograd_course.checks.verdict import ACTIVITY_MIME, VERDICT_MIME
from autograd_course.setup_cell import TAG as SETUP_TAG
from autograd_instructor.site.broken_code import show_broken_code
from autograd_instructor.site.formulas import MATH_CLASS, MathRenderer
from autograd_instructor.site.reveals import fold_revealing_outputs, revealing_cells

__all__ = [
    "WIDGET_NOTE",
    "NotebookPage",
    "describe_plots",
    "notebook_page",
    "static_widgets",
    "verdicts_with_code",
]

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = "Interactive widget: open the notebook (Colab, Binder or your own Jupyter) to use it."
_WIDGET_REPR = re.compile(r"^\s*[A-Z]\w*\(")  # VBox(children=...), interactive(...): a widget's own repr
_HEADING = re.compile(r"<h([1-6]) id=\"([^\"]*)\">(.*?)</h\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
_INLINE_TAG = re.compile(
    r"</?(?:span|a|code|em|strong|b|i|mark|sub|sup|wbr)\b[^>]*>"
)  # words go on through these
_MERMAID = re.compile(r"<pre class=\"mermaid\">.*?</pre>", re.S)  # a diagram's source is no text to search


@dataclass
class NotebookPage:
    """A notebook rendered for the site: its title, body HTML and the text search reads, by section."""

    title: str
    body: str
    sections: list[tuple[str, str, str]] = field(default_factory=list)  # (anchor, heading, text)
    contents: list[tuple[str, str]] = field(default_factory=list)  # (anchor, heading) of each ## section
    math: bool = False  # the page has formulas for KaTeX to draw

    def __repr__(self) -> str:
        return f"NotebookPage({self.title!r}, {len(self.sections)} sections)"


def static_widgets(nb: nbformat.NotebookNode) -> int:
    """Replace each widget view by its stored sentence and a note (never a `VBox(...)` repr); the count."""
    count = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_MIME not in data:
                continue
            text = "".join(data.get("text/plain", ""))
            sentence = "" if _WIDGET_REPR.match(text) else f"<p>{html.escape(text)}</p>"
            data.pop(WIDGET_MIME)
            data["text/html"] = f'<div class="widget-fallback">{sentence}<p><em>{WIDGET_NOTE}</em></p></div>'
            data["text/plain"] = WIDGET_NOTE
            count += 1
    return count


def verdicts_with_code(nb: nbformat.NotebookNode) -> int:
    """Show the `names` of stored verdicts as code, as a live kernel now does; the count of verdicts."""
    count = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/html" in data and (VERDICT_MIME in data or ACTIVITY_MIME in data):
                data["text/html"] = code_spans("".join(data["text/html"]))
                count += 1
    return count


def _plain(fragment: str) -> str:
    """The text a reader sees: no diagram source, code spans joined as written, whitespace collapsed."""
    text = _TAG.sub(" ", _INLINE_TAG.sub("", _MERMAID.sub(" ", fragment)))
    return " ".join(html.unescape(text).split())


def describe_plots(nb: nbformat.NotebookNode) -> int:
    """Give every stored plot an alternative text naming its section; the count of plots described."""
    path: dict[int, str] = {}  # heading level -> the latest heading of that level
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for marks, text in re.findall(r"^(#{2,6})\s+(.+)$", cell.source, re.M):
                path = {k: v for k, v in path.items() if k < len(marks)} | {len(marks): text.strip()}
            continue
        heading = " › ".join(path[k] for k in sorted(path)).replace("`", "") or "the introduction"
        for output in cell.get("outputs", []):
            for mime in ("image/png", "image/jpeg", "image/svg+xml"):
                if mime not in output.get("data", {}):
                    continue
                meta = output.setdefault("metadata", {}).setdefault(mime, {})
                if not meta.get("alt"):
                    meta["alt"] = f"Plot drawn by the code cell above, in “{heading}”"
                    count += 1
    return count


_CELL = re.compile(r"<td>(.*?)</td>", re.S)
_LONG_WORD = re.compile(r"(?=[^\s<>]*[_(])[^\s<>]{17,}")  # a long name or call, never a number
_BREAK_AFTER = re.compile(r"(?<=[_(./,=])(?=[^\s)\],;:])")


def soft_breaks(body: str) -> str:
    """Let a long name in a prose table cell wrap after `_ ( . / , =` (<wbr>), so the table fits a phone.

    Only cells holding several words: a one-word cell (a stage name, a number) stays whole.
    """

    def cell(match: re.Match) -> str:
        inner = match.group(1)
        if len(_plain(inner).split()) < 2:
            return match.group(0)
        runs = re.split(r"(<[^>]+>)", inner)
        words = (_LONG_WORD.sub(lambda w: _BREAK_AFTER.sub("<wbr>", w.group(0)), r) for r in runs)
        return "<td>" + "".join(r if r.startswith("<") else w for r, w in zip(runs, words)) + "</td>"

    return _CELL.sub(cell, body)


def _sections(body: str, title: str) -> list[tuple[str, str, str]]:
    """(anchor, heading, plain text) for each part of the page between headings."""
    sections, anchor, heading, pos = [], "", title, 0
    for match in _HEADING.finditer(body):
        sections.append((anchor, heading, _plain(body[pos : match.start()])))
        anchor, heading, pos = match.group(2), _plain(match.group(3)).rstrip("¶").strip(), match.end()
    sections.append((anchor, heading, _plain(body[pos:])))
    return [s for s in sections if s[2] or s[0]]


class _SiteExporter(HTMLExporter):
    """nbconvert's HTML exporter whose Markdown cells mark math for KaTeX (formulas.py), not for MathJax."""

    @jinja2.pass_context
    def markdown2html(self, context, source: str) -> str:
        """A Markdown cell as HTML, its math as elements holding the TeX."""
        cell = context.get("cell", {})
        renderer = MathRenderer(
            escape=False,
            attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links,
            **self.lexer_options,
        )
        return MarkdownWithMath(renderer=renderer).render(source)


@cache
def _exporter() -> HTMLExporter:
    """nbconvert's basic template without prompts, the setup cell left out: made once per process."""
    exporter = _SiteExporter(template_name="basic", exclude_input_prompt=True, exclude_output_prompt=True)
    remove = TagRemovePreprocessor(remove_cell_tags={SETUP_TAG}, enabled=True)
    exporter.register_preprocessor(remove, enabled=True)
    return exporter


def notebook_page(nb: nbformat.NotebookNode, link_map: dict[str, str] | None = None) -> NotebookPage:
    """Render a notebook's stored cells and outputs; links to other course notebooks become page links.

    The setup cell (Colab and Kaggle only) is left out; widgets get their static fallback; verdicts show
    their `names` as code; an exercise's `print(ex.code())` cell shows the default variant's code; an
    output that answers an activity is folded (reveals.py).
    """
    nb = copy.deepcopy(nb)
    show_broken_code(nb)
    static_widgets(nb)
    describe_plots(nb)
    verdicts_with_code(nb)
    body, _ = _exporter().from_notebook_node(nb)
    body = fold_revealing_outputs(soft_breaks(body), revealing_cells(nb))
    for target, page in (link_map or {}).items():
        body = body.replace(f'href="{target}"', f'href="{page}"')
    first = _HEADING.search(body)
    title = _plain(first.group(3)).rstrip("¶").strip() if first else "Untitled"
    contents = [
        (m.group(2), _plain(m.group(3)).rstrip("¶").strip())
        for m in _HEADING.finditer(body)
        if m.group(1) == "2"
    ]
    math = bool(re.search(rf'class="{MATH_CLASS}[ "]', body))
    return NotebookPage(title, body, _sections(body, title), contents, math)
