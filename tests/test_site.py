"""`autograd-course site`: every lesson and exercise page from stored outputs, self-contained, searchable."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import nbformat
import pytest

from autograd_course import repository as repository_module
from autograd_course.cli import main
from autograd_course.course import COURSE_MAP, course_notebooks, exercise_notebooks
from autograd_instructor.challenge.catalogue import render
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.site import WIDGET_NOTE, build_site
from autograd_instructor.site.broken_code import VARIANT_NOTE
from autograd_instructor.site.build import CODE_BACKGROUND, contrast, readable
from autograd_instructor.site.notebook_html import notebook_page, soft_breaks, static_widgets

FORK = "https://github.com/teacher/autograd-fork"
BRANCH = "spring-2027"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built once, in a checkout whose one repository setting names a fork."""
    out = tmp_path_factory.mktemp("site")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            repository_module, "project_table", lambda: {"version": "0.1.0", "urls": {"Repository": FORK}}
        )
        build_site(out, branch=BRANCH)
    return out


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_every_lesson_and_exercise_has_a_page(site):
    expected = [f"notebooks/{p.stem}" for p in course_notebooks()]
    expected += [f"exercises/{p.stem}" for p in exercise_notebooks()]
    for stem in expected:
        assert (site / f"{stem}.html").is_file(), stem
    assert {p.relative_to(site).as_posix() for p in pages(site)} == {
        "index.html",
        *(s + ".html" for s in expected),
    }


def test_downloads_are_the_stored_notebooks(site):
    for nb in course_notebooks() + exercise_notebooks():
        copy = site / nb.parent.name / nb.name
        assert copy.read_bytes() == nb.read_bytes()


def test_the_home_page_is_the_course_map(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'href="([^"]+\.html)"', home)
    for lesson in COURSE_MAP:
        assert f"notebooks/{lesson.notebook().stem}.html" in hrefs and lesson.title in home
    for nb in exercise_notebooks():
        assert f"exercises/{nb.stem}.html" in hrefs


def test_no_page_loads_a_script_style_or_image_from_another_host(site):
    for page in pages(site):
        text = page.read_text(encoding="utf-8")
        loaded = re.findall(r"<(?:script|img|iframe)\b[^>]*\bsrc=\"([^\"]*)\"", text)
        loaded += re.findall(r"<link\b[^>]*\bhref=\"([^\"]*)\"", text)
        remote = [url for url in loaded if re.match(r"(https?:)?//", url)]
        assert not remote, f"{page.name} loads {remote}"
        for src in re.findall(r"<script\b[^>]*\bsrc=\"([^\"]*)\"", text):
            assert (page.parent / src).resolve().is_file(), f"{page.name}: {src} is not in the site"
    stylesheets = list((site / "static").glob("*.css"))
    assert stylesheets, "the site has its stylesheets"
    for css in stylesheets:
        assert not re.search(r"@import|url\(\s*['\"]?(https?:)?//", css.read_text(encoding="utf-8")), css.name


def test_outputs_are_the_stored_ones(site):
    page = (site / "notebooks/03_backward_twice.html").read_text(encoding="utf-8")
    assert "Trying to backward through the graph a second time" in page  # expect_error's traceback
    assert '<pre class="mermaid">' in page
    plots = (site / "notebooks/02_gradient_accumulation.html").read_text(encoding="utf-8")
    images = re.findall(r"<img [^>]*>", plots)
    assert images and all('alt="Plot drawn by the code cell above, in “' in img for img in images)
    assert "course-setup" not in page and "ON_COLAB" not in page  # the Colab setup cell is left out


def test_verdicts_show_their_names_as_code_not_backticks(site):
    page = (site / "notebooks/00_mental_model.html").read_text(encoding="utf-8")
    assert "set <code>fixed_w</code> in the cell above" in page
    assert "`fixed_w`" not in page


def test_exercise_pages_show_the_default_variants_broken_code(site):
    for nb in exercise_notebooks():
        assert not any(c.get("outputs") for c in nbformat.read(nb, as_version=4).cells)  # nothing stored
        code = render(variant_for(None, nb.stem.split("_", 1)[0])) + "\n"  # what print(ex.code()) prints
        assert "def broken_step(" in code
        page = (site / f"exercises/{nb.stem}.html").read_text(encoding="utf-8")
        shown = re.findall(r'output_stdout output_text">\s*<pre>(.*?)</pre>', page, re.S)
        assert [html.unescape(s) for s in shown] == [code], nb.name
        assert VARIANT_NOTE in page
    lesson = (site / "notebooks/03_backward_twice.html").read_text(encoding="utf-8")
    assert "variant-note" not in lesson


def _prose(page: str) -> str:
    """The text a reader sees outside code, scripts and the math elements KaTeX draws."""
    page = re.sub(r"<(pre|code|script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r'<(span|div) class="math[^"]*">.*?</\1>', " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_no_page_shows_raw_tex_and_pages_with_math_load_katex(site):
    with_math = []
    for path in pages(site):
        page = path.read_text(encoding="utf-8")
        raw = re.findall(r"\$[^$\n]+\$|\\\(|\\\[|\\begin\{", _prose(page))
        assert not raw, f"{path.name} shows raw TeX: {raw[:3]}"
        math = re.findall(r'<span class="math">(.*?)</span>', page)
        loads = "static/katex.min.js" in page and "static/katex.min.css" in page
        assert loads == bool(math), path.name  # KaTeX loads where there is math, and only there
        with_math += [path.name] * bool(math)
    lesson = (site / "notebooks/04_inplace_operations.html").read_text(encoding="utf-8")
    assert '<span class="math">z = (3x)^2</span>' in lesson and "$z = (3x)^2$" not in lesson
    assert "04_inplace_operations.html" in with_math and "index.html" not in with_math


def test_katex_fonts_are_all_in_the_site(site):
    css = (site / "static/katex.min.css").read_text(encoding="utf-8")
    urls = re.findall(r"url\(([^)]*)\)", css)
    assert urls and all(u.endswith(".woff2") and (site / "static" / u).is_file() for u in urls), urls
    assert sorted(urls) == sorted(p.name for p in (site / "static").glob("KaTeX_*.woff2"))  # one each
    assert css.count("@font-face") == len(urls)  # every font loads, from its woff2 alone


def test_math_in_markdown_becomes_an_element_holding_the_escaped_tex():
    nb = nbformat.v4.new_notebook()
    text = "# T\n\nIf $a<b$ then\n\n$$\\frac{a}{b} < 1$$\n\nand `$x$` stays code."
    nb.cells = [nbformat.v4.new_markdown_cell(text)]
    page = notebook_page(nb)
    assert '<span class="math">a&lt;b</span>' in page.body
    assert '<div class="math math-display">\\frac{a}{b} &lt; 1</div>' in page.body
    assert "<code>$x$</code>" in page.body and page.math
    nb.cells = [nbformat.v4.new_markdown_cell("# T\n\nNo formula, $5 only.")]
    assert not notebook_page(nb).math


def test_long_names_in_prose_table_cells_may_wrap_but_words_and_numbers_stay_whole(site):
    cells = (
        "<td>see compute_loss(model, x)</td><td>GRAD_MODE_DISABLED</td><td>-5.000e-01 1.234567890123e+00</td>"
    )
    assert soft_breaks(cells) == (
        "<td>see compute_<wbr>loss(<wbr>model, x)</td><td>GRAD_MODE_DISABLED</td>"
        "<td>-5.000e-01 1.234567890123e+00</td>"
    )
    page = (site / "exercises/A_detached_output.html").read_text(encoding="utf-8")
    assert "classify_<wbr>parameter_<wbr>gradients" in page  # the evidence table fits a phone
    index = json.loads((site / "search.json").read_text(encoding="utf-8"))
    text = " ".join(s["text"] for page in index for s in page["sections"])
    assert "classify_parameter_gradients" in text and "classify_ parameter" not in text


def test_every_page_has_the_chapters_and_its_own_contents(site):
    chapters = [f"notebooks/{p.stem}.html" for p in course_notebooks()]
    chapters += [f"exercises/{p.stem}.html" for p in exercise_notebooks()]
    for path in pages(site):
        text = path.read_text(encoding="utf-8")
        nav = text.split('<nav class="chapters"', 1)[1].split("</nav>", 1)[0]
        prefix = "" if path.name == "index.html" else "../"
        assert re.findall(r'href="([^"]+)"', nav)[1:] == [prefix + c for c in chapters], path.name
        current = re.findall(r'href="([^"]+)" aria-current="page"', nav)
        assert current == ([] if path.name == "index.html" else [prefix + path.relative_to(site).as_posix()])
    page = (site / "notebooks/03_backward_twice.html").read_text(encoding="utf-8")
    contents = page.split('<nav class="contents"', 1)[1].split("</nav>", 1)[0]
    anchors = re.findall(r'href="#([^"]+)"', contents)
    assert anchors[0] == "Goal" and "Summary" in anchors
    assert all(f'<h2 id="{a}">' in page for a in anchors)


def test_search_text_has_no_diagram_source_and_code_reads_as_written(site):
    index = json.loads((site / "search.json").read_text(encoding="utf-8"))
    text = " ".join(s["text"] for page in index for s in page["sections"])
    assert "flowchart" not in text and "graph TD" not in text and "-->" not in text
    assert "x.grad" in text and "x . grad" not in text


def test_widgets_show_a_static_fallback_never_their_repr(site):
    page = (site / "notebooks/02_gradient_accumulation.html").read_text(encoding="utf-8")
    assert "widget-fallback" in page and WIDGET_NOTE in page
    assert not re.search(r"(VBox|HBox|interactive)\(", page.split("<article", 1)[1].split("<code", 1)[0])
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("w")]
    nb.cells[0].outputs = [
        nbformat.v4.new_output(
            "display_data",
            {
                "application/vnd.jupyter.widget-view+json": {"model_id": "x"},
                "text/plain": "VBox(children=(...))",
            },
        )
    ]
    assert static_widgets(nb) == 1
    html = nb.cells[0].outputs[0]["data"]["text/html"]
    assert "VBox" not in html and WIDGET_NOTE in html


def test_search_finds_retain_graph_in_lesson_03(site):
    index = json.loads((site / "search.json").read_text(encoding="utf-8"))
    script = (site / "static/search-index.js").read_text(encoding="utf-8")
    assert json.loads(script.removeprefix("window.COURSE_SEARCH = ").rstrip().removesuffix(";")) == index

    def count(page: dict) -> int:
        return sum((s["heading"] + s["text"]).count("retain_graph") for s in page["sections"])

    ranked = sorted(index, key=count, reverse=True)
    assert ranked[0]["url"] == "notebooks/03_backward_twice.html" and count(ranked[0]) > 0
    assert len(index) == len(course_notebooks()) + len(exercise_notebooks())


def test_launch_links_follow_the_repository_setting_and_branch(site):
    for page in pages(site):
        if page.name == "index.html":
            continue
        rel = page.relative_to(site).with_suffix(".ipynb").as_posix()
        text = page.read_text(encoding="utf-8")
        colab = re.search(r'href="(https://colab\.research\.google\.com/[^"]+)"', text).group(1)
        assert colab == f"https://colab.research.google.com/github/teacher/autograd-fork/blob/{BRANCH}/{rel}"
        binder = urlparse(
            re.search(r'href="(https://mybinder\.org/[^"]+)"', text).group(1).replace("&amp;", "&")
        )
        assert binder.path == f"/v2/gh/teacher/autograd-fork/{BRANCH}"
        assert parse_qs(binder.query) == {"labpath": [rel]}
        assert f'href="{Path(rel).name}" download' in text


def test_code_colours_are_readable_on_the_code_background(site):
    css = (site / "static/pygments.css").read_text(encoding="utf-8")
    colours = re.findall(r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})\b", css)
    assert colours and min(contrast(c, CODE_BACKGROUND) for c in colours) >= 4.5
    assert contrast(readable("#eeeeee"), CODE_BACKGROUND) >= 4.5  # a pale colour is darkened until it is


def test_links_between_notebooks_point_at_pages_and_every_local_link_resolves(site):
    page = (site / "notebooks/00_mental_model.html").read_text(encoding="utf-8")
    assert 'href="01_graph_cuts.html"' in page and 'href="01_graph_cuts.ipynb"' not in page
    broken = []
    for path in pages(site):
        for href in re.findall(r'href="([^"]*)"', path.read_text(encoding="utf-8")):
            local = href.split("#", 1)[0]
            if local and not re.match(r"[a-z]+:", local) and not (path.parent / local).exists():
                broken.append(f"{path.relative_to(site)}: {href}")
    assert not broken


def test_bad_repository_or_out_dir_is_a_clear_error(tmp_path, capsys):
    assert main(["site", str(tmp_path / "out"), "--repo", "teacher/fork"]) == 2
    assert "expected the repository as a git URL" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["site", str(tmp_path / "file")]) == 2
    assert "is a file" in capsys.readouterr().err


def test_outputs_that_answer_an_activity_are_folded_as_in_a_learners_copy():
    """Every output the learner's copy hides until answered sits in a closed <details> on the site."""
    import nbformat

    from autograd_course.course import course_notebooks
    from autograd_instructor.site.notebook_html import notebook_page
    from autograd_instructor.site.reveals import revealing_cells

    folded = 0
    for path in course_notebooks():
        nb = nbformat.read(path, as_version=4)
        cells = revealing_cells(nb)
        body = notebook_page(nb).body
        for cell_id, activity in cells.items():
            start = body.index(f'id="cell-id={cell_id}"')
            details = body.find('<details class="reveals">', start)
            assert details > 0 and f"your turn {activity}" in body[details : details + 200], (
                path.name,
                activity,
            )
            assert body.find('<div class="output_wrapper">', start) > details, (path.name, activity)
            folded += 1
    assert folded >= 3  # 03.1, 06.1, 16.1 and the lessons' other revealing cells
