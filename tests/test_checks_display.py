"""A verdict's or hint's `names` show as code in HTML and keep their backticks in plain text."""

from __future__ import annotations

import nbformat

from autograd_course.checks import Note, Outcome, Verdict
from autograd_course.checks.display import code_spans, message_html
from autograd_instructor.regression import Sanitizer
from autograd_instructor.site.notebook_html import verdicts_with_code


def test_backticks_become_code_and_the_rest_stays_escaped():
    assert message_html("set `fixed_w` & <b>") == "set <code>fixed_w</code> &amp; &lt;b&gt;"
    assert message_html("a lone ` stays") == "a lone ` stays"
    assert message_html("`a` and `b < c`") == "<code>a</code> and <code>b &lt; c</code>"


def test_a_verdict_shows_code_in_html_and_backticks_in_text():
    verdict = Verdict("00.1", None, Outcome.NOT_ATTEMPTED, "set `fixed_w` in the cell above")
    assert "set <code>fixed_w</code> in the cell above" in verdict._repr_html_()
    assert "`" not in verdict._repr_html_()
    assert verdict.text() == "Your turn 00.1: not attempted. set `fixed_w` in the cell above"


def test_a_hint_shows_code_and_a_solution_stays_preformatted():
    assert "<code>x.grad</code>" in Note("Hint 1 of 2:", "read `x.grad`")._repr_html_()
    solution = Note("solution:", "y = `not code`", code=True)._repr_html_()
    assert "<pre>y = `not code`</pre>" in solution


def test_stored_verdicts_with_backticks_still_match_under_nbval():
    sanitize = Sanitizer.from_file()
    old = "<b>Your turn 00.1: not attempted.</b> set `fixed_w` in the cell above"
    assert sanitize(code_spans(old)) == sanitize(old)
    assert sanitize(code_spans(old)) != sanitize(old.replace("fixed_w", "fixed_b"))


def test_the_site_renders_a_stored_verdict_with_code():
    nb = nbformat.v4.new_notebook()
    verdict = Verdict("00.1", None, Outcome.NOT_ATTEMPTED, "set `fixed_w` in the cell above")
    old_html = verdict._repr_html_().replace("<code>", "`").replace("</code>", "`")  # as stored before
    bundle = {**verdict._repr_mimebundle_(), "text/html": old_html}
    nb.cells = [
        nbformat.v4.new_code_cell(
            "tasks.q1.check()",
            outputs=[
                nbformat.v4.new_output("display_data", bundle),
                nbformat.v4.new_output("display_data", {"text/html": "<p>`left alone`</p>"}),
            ],
        )
    ]
    assert verdicts_with_code(nb) == 1
    assert "<code>fixed_w</code>" in nb.cells[0].outputs[0]["data"]["text/html"]
    assert nb.cells[0].outputs[1]["data"]["text/html"] == "<p>`left alone`</p>"
