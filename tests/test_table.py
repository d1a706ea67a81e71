"""The shared text and HTML tables: plain text, aligned, escaped, NaN always visible."""

import math

import torch

from helpers import GradStatus
from helpers._table import STATUS_COLOURS, fmt, html_report_table, text_table


def test_fmt_cells():
    assert fmt(None) == "-"
    assert (fmt(True), fmt(False)) == ("True", "False")
    assert (fmt(math.nan), fmt(math.inf), fmt(-math.inf)) == ("nan", "inf", "-inf")
    assert (fmt(1234.5), fmt(0.0), fmt(-1e-30)) == ("1.234e+03", "0.000e+00", "-1.000e-30")
    assert fmt(7) == "7"
    assert fmt(GradStatus.ZERO_GRAD) == "ZERO_GRAD"
    assert (fmt((3, 4)), fmt((5,)), fmt(())) == ("(3, 4)", "(5,)", "()")
    assert fmt("fc1.weight") == "fc1.weight"


def test_text_table_aligns_text_left_and_numbers_right():
    text = text_table(["name", "n", "x"], [["a", 1, 0.5], ["long_name", 100, math.nan]])
    assert text.splitlines() == [
        "name         n          x",
        "---------  ---  ---------",
        "a            1  5.000e-01",
        "long_name  100        nan",
    ]
    assert "\x1b" not in text


def test_text_table_without_rows_is_the_header():
    assert text_table(["name", "status"], []).splitlines() == ["name  status", "----  ------"]


def test_html_table_escapes_and_colours():
    page = html_report_table(
        ["name", "status", "max"],
        [["<b>", GradStatus.OK, math.inf], ["w&b", "unknown", 1.0]],
        caption="a <caption>",
        status_column="status",
    )
    assert page.startswith(
        "<table class='autograd-report' style='max-width:100%;overflow-wrap:anywhere'>"
        "<caption style='text-align:left'>a &lt;caption&gt;"
    )
    assert "<td>&lt;b&gt;</td>" in page and "<td>w&amp;b</td>" in page
    assert f'<td style="background:{STATUS_COLOURS["OK"]}">OK</td>' in page
    assert "<td>unknown</td>" in page  # an unknown status is shown, uncoloured
    assert '<td style="background:#ffcdd2;font-weight:bold">inf</td>' in page
    assert page.count("<tr>") == 3 and page.endswith("</tbody></table>")


def test_every_grad_status_has_a_colour():
    assert {s.name for s in GradStatus} <= set(STATUS_COLOURS)


def test_html_tables_shrink_to_the_output_area_instead_of_being_clipped():
    # A 1280 px JupyterLab output area clipped the gradient report of a real model (long names,
    # seven columns): the table may not be wider than its container, and names wrap anywhere.
    page = html_report_table(["name", "status"], [["transformer.h.11.attn.c_attn.weight" * 4, "OK"]])
    opening = page[: page.index(">") + 1]
    assert "max-width:100%" in opening and "overflow-wrap:anywhere" in opening


def test_columns_of_one_repeated_value_and_of_tensors_format_like_any_other():
    rows = [["a", 0.5, True, torch.ones(2)], ["b", 0.5, True, torch.ones(2)]]
    text = text_table(["name", "x", "ok", "t"], rows)
    assert text.splitlines()[2].split() == ["a", "5.000e-01", "True", "tensor([1.,", "1.])"]
    page = html_report_table(["name", "x", "ok", "t"], rows)
    assert page.count("<td>5.000e-01</td>") == 2 and page.count("<td>True</td>") == 2
