"""Build the course site: the course map, a page per lesson and challenge notebook, search, launch links."""

from __future__ import annotations

import html
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import jinja2
import nbformat
from markupsafe import Markup
from pygments.formatters import HtmlFormatter

from autograd_course.course import COURSE_MAP, exercise_notebooks, exercise_titles
from autograd_course.repository import binder_link, colab_link, repo_parts, repository
from autograd_instructor.site.notebook_html import notebook_page

__all__ = ["SITE_TITLE", "BuiltSite", "build_site"]

SITE_TITLE = "Autograd Debugging"
HERE = Path(__file__).resolve().parent
VENDORED = ("mermaid.min.js", "mermaid.LICENSE", "katex.min.js", "katex.LICENSE", "site.css", "site.js")
KATEX_FONTS = "KaTeX_*.woff2"
# KaTeX's stylesheet offers each font as woff2, woff and ttf from fonts/; the site ships the woff2 beside it.
_FONT_SOURCES = re.compile(
    r'url\(fonts/([\w-]+\.woff2)\) format\("woff2"\)(?:,url\([^)]*\) format\("[\w-]+"\))*'
)
PYGMENTS_STYLE = "default"
CODE_BACKGROUND = "#f5f5f5"  # .highlight in site.css
MIN_CONTRAST = 4.6  # WCAG AA asks 4.5:1 for body text


@dataclass(frozen=True)
class BuiltSite:
    """What `build_site` wrote: the home page and one page per notebook (paths relative to the site)."""

    out_dir: Path
    pages: tuple[str, ...]
    repo: str | None
    branch: str

    def __repr__(self) -> str:
        return f"BuiltSite({self.out_dir}, {len(self.pages)} notebook pages)"


def _luminance(rgb: tuple[int, int, int]) -> float:
    channels = [c / 255 for c in rgb]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _rgb(color: str) -> tuple[int, int, int]:
    color = color.lstrip("#")
    if len(color) == 3:
        color = "".join(c * 2 for c in color)
    return int(color[0:2], 16), int(color[2:4], 16), int(color[4:6], 16)


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio of two #rgb or #rrggbb colours."""
    a, b = sorted((_luminance(_rgb(foreground)), _luminance(_rgb(background))), reverse=True)
    return (a + 0.05) / (b + 0.05)


def readable(color: str, background: str = CODE_BACKGROUND) -> str:
    """The colour, darkened just enough to reach MIN_CONTRAST on the background."""
    rgb = _rgb(color)
    for step in range(101):
        shade = "#" + "".join(f"{round(c * (1 - step / 100)):02x}" for c in rgb)
        if contrast(shade, background) >= MIN_CONTRAST:
            return shade
    return "#000000"


def pygments_css() -> str:
    """Pygments' colours for the code cells, each made readable on the code background."""
    css = HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(".highlight")
    css = re.sub(r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})\b", lambda m: f"color: {readable(m.group(1))}", css)
    return re.sub(r"background(?:-color)?: #[0-9a-fA-F]{3,6}", f"background: {CODE_BACKGROUND}", css)


def _environment() -> jinja2.Environment:
    loader = jinja2.FileSystemLoader(str(HERE / "templates"))
    return jinja2.Environment(loader=loader, autoescape=jinja2.select_autoescape(["j2"]))


def _notebooks() -> list[tuple[str, Path]]:
    """(folder/name.ipynb, path) for every lesson in course-map order, then every exercise."""
    lessons = [lesson.notebook() for lesson in COURSE_MAP]
    found = [(f"notebooks/{p.name}", p) for p in lessons]
    return found + [(f"exercises/{p.name}", p) for p in exercise_notebooks()]


def _home(notebooks: list[tuple[str, Path]], titles: dict[str, str]) -> str:
    """The course map as the home page's body."""
    rows = []
    for lesson in COURSE_MAP:
        href = f"notebooks/{lesson.notebook().stem}.html"
        rows.append(
            f'<tr><td>{lesson.number}</td><td><a href="{href}">{html.escape(lesson.title)}</a></td>'
            f"<td>{html.escape(lesson.learn)}</td><td>{lesson.minutes} min</td></tr>"
        )
    exercises = []
    for rel, path in notebooks:
        if rel.startswith("exercises/"):
            ex_id = path.stem.split("_", 1)[0]
            label = titles.get(ex_id, path.stem)
            exercises.append(
                f'<li><a href="exercises/{path.stem}.html">{ex_id} · {html.escape(label)}</a></li>'
            )
    return (
        f"<h1>{SITE_TITLE}</h1>"
        "<p>A course on finding and fixing PyTorch autograd bugs: <em>why is my gradient <code>None</code>, "
        "<code>NaN</code>, or not training?</em> Every lesson reproduces an error, gathers evidence with a "
        "small "
        "debugging toolkit, fixes it and asserts the fix. These pages show each notebook with the outputs it "
        "produced; open one on Colab or Binder, or download it, to run it yourself.</p>"
        '<h2 id="lessons">The course map</h2>'
        '<table class="course-map"><caption>The lessons, in order</caption>'
        '<thead><tr><th scope="col">Lesson</th><th scope="col">Title</th><th scope="col">What you learn</th>'
        '<th scope="col">Time</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>"
        '<h2 id="challenge">Then: the challenge</h2>'
        "<p>The TinyNet bug challenge: find and fix one bug in each notebook, graded with "
        "<code>autograd-course check</code>.</p><ul>" + "".join(exercises) + "</ul>"
    )


def katex_css(css: str) -> str:
    """KaTeX's stylesheet with each font loaded from the woff2 beside it (the browsers the site serves)."""
    return _FONT_SOURCES.sub(r'url(\1) format("woff2")', css)


def _copy_static(static: Path) -> None:
    """The vendored scripts, fonts and theme, and the code colours as CSS."""
    static.mkdir(parents=True, exist_ok=True)
    for name in VENDORED:
        shutil.copyfile(HERE / "static" / name, static / name)
    for font in (HERE / "static").glob(KATEX_FONTS):
        shutil.copyfile(font, static / font.name)
    katex = (HERE / "static" / "katex.min.css").read_text(encoding="utf-8")
    (static / "katex.min.css").write_text(katex_css(katex), encoding="utf-8")
    (static / "pygments.css").write_text(pygments_css(), encoding="utf-8")


def _link_map(notebooks: list[tuple[str, Path]]) -> dict[str, str]:
    """A notebook's links to its neighbours (lessons by file name, exercises by ../exercises/...) as pages."""
    link_map = {}
    for rel, path in notebooks:
        link_map[path.name] = f"{path.stem}.html"
        link_map[f"../{rel}"] = f"../{rel.removesuffix('.ipynb')}.html"
    return link_map


def _nav(rendered: list, i: int) -> dict[str, dict[str, str]]:
    """The previous and next pages of page i, where they exist."""
    neighbour = {
        "prev": rendered[i - 1] if i > 0 else None,
        "next": rendered[i + 1] if i + 1 < len(rendered) else None,
    }
    return {
        k: {"href": "../" + v[0].removesuffix(".ipynb") + ".html", "title": v[2].title}
        for k, v in neighbour.items()
        if v is not None
    }


def _chapters(rendered: list, current: int | None, root: str) -> list[dict[str, object]]:
    """The sidebar: every page of the course in order, the current one marked."""
    return [
        {"href": root + rel.removesuffix(".ipynb") + ".html", "label": page.title, "current": i == current}
        for i, (rel, _path, page) in enumerate(rendered)
    ]


def _write_page(out_dir: Path, template, rendered: list, i: int, repo: str | None, branch: str) -> dict:
    """Write page i and its download copy; return its search-index entry."""
    rel, path, page = rendered[i]
    html_rel = rel.removesuffix(".ipynb") + ".html"
    target = out_dir / html_rel
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target.with_suffix(".ipynb"))
    launch = {
        "colab": colab_link(repo, branch, rel) if repo else "",
        "binder": binder_link(repo, branch, rel) if repo else "",
        "download": path.name,
    }
    text = template.render(
        title=page.title,
        site_title=SITE_TITLE,
        root="../",
        body=Markup(page.body),
        launch=launch,
        repo=repo,
        branch=branch,
        chapters=_chapters(rendered, i, "../"),
        contents=page.contents,
        math=page.math,
        **_nav(rendered, i),
    )
    target.write_text(text, encoding="utf-8")
    sections = [{"anchor": a, "heading": h, "text": t} for a, h, t in page.sections]
    return {"url": html_rel, "title": page.title, "sections": sections}


def build_site(out_dir: Path, repo: str | None = None, branch: str = "main") -> BuiltSite:
    """Write the whole site into out_dir from the notebooks' stored outputs; no kernel, no network.

    Launch links use repo (default: the course's one setting, [project.urls] Repository) at branch.
    """
    repo = repo or repository()
    if repo:
        repo_parts(repo)  # a clear ValueError for something that is not a repository URL
    out_dir = Path(out_dir)
    static = out_dir / "static"
    _copy_static(static)
    template = _environment().get_template("page.html.j2")
    notebooks = _notebooks()
    link_map = _link_map(notebooks)
    rendered = [
        (rel, path, notebook_page(nbformat.read(path, as_version=4), link_map)) for rel, path in notebooks
    ]
    index = [_write_page(out_dir, template, rendered, i, repo, branch) for i in range(len(rendered))]
    home = template.render(
        title="Course map",
        site_title=SITE_TITLE,
        root="",
        body=Markup(_home(notebooks, exercise_titles())),
        launch=None,
        repo=repo,
        branch=branch,
        chapters=_chapters(rendered, None, ""),
        contents=[("lessons", "The course map"), ("challenge", "Then: the challenge")],
    )
    (out_dir / "index.html").write_text(home, encoding="utf-8")
    data = json.dumps(index, ensure_ascii=False, separators=(",", ":"))
    (out_dir / "search.json").write_text(data, encoding="utf-8")
    (static / "search-index.js").write_text(f"window.COURSE_SEARCH = {data};\n", encoding="utf-8")
    (out_dir / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages serves the files as they are
    return BuiltSite(out_dir, tuple(entry["url"] for entry in index), repo, branch)
