"""One check view: an activity and a challenge part look the same in JupyterLab, outcome by outcome.

tests/browser/fixtures/one_look.ipynb runs, for lesson 00's first activity and challenge A, a check
not attempted, a check answered wrongly, and a hint. Each pair must render with the same box, the
same colours and the same kind of title ("<what>: <outcome>." and "Hint 1 of 2:").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from browser.notebook_page import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The rendered box of each cell's first output: its computed look and its bold title.
_LOOKS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  return panel.content.widgets.map((cell) => {
    const box = cell.model.type === "code"
      ? cell.node.querySelector(".jp-OutputArea-output.jp-RenderedHTMLCommon > div") : null;
    if (!box) return null;
    const style = getComputedStyle(box);
    const title = box.querySelector("b");
    return {
      text: box.innerText,
      code: [...box.querySelectorAll("code")].map((c) => c.innerText),
      look: [style.backgroundColor, style.color, style.padding, style.borderRadius, style.fontFamily,
             style.fontSize, title ? getComputedStyle(title).fontWeight : ""].join(" | "),
      title: title ? title.innerText : "",
    };
  });
}"""

ACTIVITY, CHALLENGE = "Your turn 00.1", "A part"
PAIRS = {  # (activity cell, challenge cell): the title both must have
    "not attempted": ((2, 3), r": not attempted\.$"),
    "incorrect": ((4, 5), r": incorrect\.$"),
    "hint": ((6, 7), r"^Hint 1 of 2:?$"),
}


def test_activities_and_challenge_parts_share_one_verdict_look(
    open_notebook: Callable[[str], NotebookPage],
) -> None:
    notebook = open_notebook("fixtures/one_look.ipynb").run_all()
    looks = notebook.page.evaluate(_LOOKS)
    message = notebook.report(notebook.problems())
    for name, ((activity, part), title) in PAIRS.items():
        mine, theirs = looks[activity], looks[part]
        assert mine and theirs, f"{name}: no rendered box in cell {activity} or {part}\n{message}"
        assert mine["look"] == theirs["look"], f"{name}: {mine['look']} != {theirs['look']}\n{message}"
        for seen in (mine, theirs):
            assert re.search(title, seen["title"]), f"{name}: title {seen['title']!r}\n{message}"
    assert looks[2]["title"].startswith(ACTIVITY) and looks[3]["title"].startswith(CHALLENGE), message
    assert "fixed_w" in looks[2]["code"], f"the name in 'set `fixed_w`' is not shown as code\n{message}"
    backticks = [i for i, seen in enumerate(looks) if seen and "`" in seen["text"]]
    assert not backticks, f"cells {backticks} show literal backticks\n{message}"
    outcomes = {looks[i]["look"] for i in (2, 4, 6)}
    assert len(outcomes) == 3, f"not attempted, incorrect and a hint look alike: {outcomes}\n{message}"
