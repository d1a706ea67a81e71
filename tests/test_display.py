"""Lesson display glue: widgets stored as a sentence, not their repr; tables as HTML and text."""

from __future__ import annotations

import pytest

from autograd_course.display import WIDGET_MIME, html_table, show_widget


def test_show_widget_stores_the_sentence_and_the_live_view(monkeypatch: pytest.MonkeyPatch) -> None:
    widgets = pytest.importorskip("ipywidgets")
    shown: list[tuple] = []
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: shown.append((a, k)))
    box = widgets.VBox([widgets.IntSlider(description="calls", style={"description_width": "initial"})])
    bundle = show_widget(box, "Widget: a slider (run the notebook to use it).")
    assert shown == [((bundle,), {"raw": True})]
    assert bundle["text/plain"] == "Widget: a slider (run the notebook to use it)."
    assert bundle[WIDGET_MIME] == {"version_major": 2, "version_minor": 0, "model_id": box.model_id}
    assert "VBox" not in repr(bundle)


@pytest.mark.parametrize(
    ("widget", "summary", "message"), [(object(), "s", "live ipywidgets"), (None, " ", "")]
)
def test_show_widget_refuses_what_it_cannot_show(widget: object, summary: str, message: str) -> None:
    widgets = pytest.importorskip("ipywidgets")
    if widget is None:
        widget, message = widgets.IntSlider(), "one-sentence summary"
    with pytest.raises(ValueError, match=message):
        show_widget(widget, summary)


def test_html_table_text_and_html() -> None:
    table = html_table([{"mode": "train", "dropout": True}, {"mode": "eval", "dropout": False}])
    assert repr(table).splitlines() == ["mode   dropout", "train  True", "eval   False"]
    page = table._repr_html_()
    assert "<th>mode</th><th>dropout</th>" in page
    assert "<td style=background:#c8e6c9>True</td>" in page and "<td>False</td>" in page
    with pytest.raises(ValueError, match="at least one row"):
        html_table([])
