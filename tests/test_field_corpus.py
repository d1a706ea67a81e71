"""The toolkit on the field corpus: every case's stated cause is named, and diagnose raises for none."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import pytest
from field_corpus import CASES, Case, Setup

from helpers import Stage, diagnose, watch_non_finite

README = Path(__file__).resolve().parent.parent / "README.md"


def _run(setup: Setup, tool: str) -> tuple[Stage, str]:
    """(stage, the finding's text): the toolkit run on one reproduction, its way."""
    if tool == "watch":
        with watch_non_finite(setup.model) as watch:
            setup.step()
        first = watch.first
        return (Stage.FORWARD_NON_FINITE if first and first.phase in ("forward", "loss") else Stage.OK), (
            first.where if first else ""
        )
    found = diagnose(setup.step, setup.model, setup.optimizer, **setup.options)
    return found.stage, "\n".join([*found.evidence, found.advice, repr(found)])


def _finding(case: Case) -> tuple[Stage, str]:
    """(stage, the finding's text) for one case. A DistributedDataParallel model is freed before its
    process group is destroyed: a gloo group torn down first can hang when the model's reducer goes."""
    setup = case.build()
    cleanup = setup.cleanup
    try:
        return _run(setup, case.tool)
    finally:
        del setup
        gc.collect()
        if cleanup is not None:
            cleanup()


@pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad=True")  # the LoRA threads' symptom
@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_the_toolkit_names_the_threads_cause(case: Case) -> None:
    stage, text = _finding(case)
    assert stage is case.stage, f"{case.key}: {stage} for {case.cause!r}\n{text}"
    missing = [n for n in case.names if n not in text]
    assert not missing, f"{case.key}: the finding does not name {missing}\n{text}"


def test_every_case_cites_a_public_thread_once_and_declares_what_it_expects() -> None:
    assert len(CASES) >= 30
    keys = [c.key for c in CASES]
    assert len(set(keys)) == len(keys)
    for case in CASES:
        assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+", case.url), case.url
        assert case.cause and case.names and case.tool in ("diagnose", "watch")


def test_the_readme_reports_the_corpus_figure() -> None:
    text = README.read_text(encoding="utf-8")
    figure = re.search(r"field corpus: (\d+) of (\d+) ", text)
    assert figure, "README's toolkit section states the field corpus figure"
    assert int(figure.group(1)) == int(figure.group(2)) == len(CASES)


def test_the_readme_reports_the_first_run_beside_the_final_figure() -> None:
    recorded = [c.first_run for c in CASES if c.first_run]
    assert set(recorded) <= {"named", "in part", "wrong stage", "OK"}
    figure = re.search(
        r"first run: (\d+) of (\d+) named \((\d+) said OK, (\d+) named the stage without the cause\)",
        " ".join(README.read_text(encoding="utf-8").split()),
    )
    assert figure, "README states the first-run figure beside the final one"
    named, total, ok, in_part = (int(g) for g in figure.groups())
    assert (named, total) == (recorded.count("named"), len(recorded))
    assert (ok, in_part) == (recorded.count("OK"), recorded.count("in part"))
