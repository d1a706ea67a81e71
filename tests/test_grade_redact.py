"""What a learner reads never holds their hidden seeds or graded key: an answer that raises them, and
the grader's own message that named the seed, are redacted where the message is made, so Gradescope's
results.json and the feedback page show `[hidden]` instead. No kernel: the hidden runs run in this
process, as the grader's kernel runs them."""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace

import pytest

from autograd_course.protocol import LEARNER_ENV
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.hidden import hidden_runs, run_hidden
from autograd_instructor.grading.feedback import feedback_markdown
from autograd_instructor.grading.fixcells import run_here
from autograd_instructor.grading.grade import judge_hidden
from autograd_instructor.grading.gradescope import gradescope_results
from autograd_instructor.grading.redact import HIDDEN, Hidden

KEY = hashlib.sha256(b"a graded learner").hexdigest()  # a graded key has this form
_LEAK = "import os\nkey = os.environ.get({env!r}, '')\n"


def test_hidden_values_are_redacted_and_the_graders_small_numbers_kept():
    hidden = Hidden.of(KEY, [4321, 7])
    said = f"seed=4321 and s4321, key {KEY[:12]} ({KEY.upper()}), loss 0.4321, line 7, step 43210"
    assert hidden.message(said) == (
        f"an unseen seed and s{HIDDEN}, key {HIDDEN} ({HIDDEN}), loss 0.4321, line 7, step 43210"
    )
    assert hidden.answers("line 7: 7 of 4321") == f"line {HIDDEN}: {HIDDEN} of {HIDDEN}"
    assert Hidden.of("alice", [4321]).key == ""  # a practice id is the learner's own: nothing hidden


def test_a_hidden_seeds_simple_encodings_are_redacted_too():
    seed = 3_141_592_653_589_793_238  # drawn from 1..2**62 as hidden seeds are
    hidden = Hidden.of(KEY, [seed])
    said = f"{seed + 1} {seed - 1} {hex(seed)} {hex(seed + 1).upper()} {seed:x}! seed={seed}"
    assert hidden.answers(said) == " ".join([HIDDEN] * 5) + f"! seed={HIDDEN}"
    assert hidden.message(said) == " ".join([HIDDEN] * 5) + "! an unseen seed"
    others = f"{seed + 2} {seed:x}0 {seed // 10} 0x1f2e3d"  # other numbers, a longer hex run
    assert hidden.answers(others) == others


def test_hidden_seeds_come_from_a_space_too_large_to_search():
    from autograd_instructor.challenge.hidden import SEED_SPACE, hidden_seed

    assert SEED_SPACE >= 2**62
    seeds = [hidden_seed(f"s{k}", "A", 2, 0, 0) for k in range(200)]
    assert all(1 <= s <= SEED_SPACE for s in seeds) and len(set(seeds)) == 200
    assert sum(s > 2**40 for s in seeds) > 190  # not a few thousand values spread thin: all of the space


def _shown(records) -> str:
    """Everything a learner reads of their records: Gradescope's results.json and the feedback page."""
    return json.dumps(gradescope_results(records)) + feedback_markdown(
        "s1", "S One", records, SimpleNamespace(total=0, max=48)
    )


def _no_secret(text: str, ex_id: str, part: int) -> None:
    assert KEY[:8] not in text
    for _, seed in hidden_runs(KEY, ex_id, part):
        assert f"={seed}" not in text and f" {seed} " not in text and f"s{seed}" not in text, text


@pytest.mark.parametrize(
    "source",
    [
        _LEAK.format(env=LEARNER_ENV) + "raise ValueError(f'seed={seed} s{seed} {seed} {key}')\n",
        _LEAK.format(env=LEARNER_ENV) + "class Leak(Exception):\n    pass\n"
        "Leak.__name__ = f'S{seed}K{key}'\nraise Leak('look at the name')\n",
    ],
    ids=["message", "exception name"],
)
def test_a_part1_answer_raising_its_seed_and_key_shows_neither(tmp_path, monkeypatch, source):
    monkeypatch.setenv(LEARNER_ENV, KEY)  # what the grader's kernel holds for a graded learner
    answer = answer_source(source, 1)
    run_hidden("A", KEY, 1, answer.source, str(tmp_path))
    record = judge_hidden("s1", tmp_path, "A", 1, answer, KEY)
    assert record.status == "error" and HIDDEN in record.message, record.message
    _no_secret(_shown([record]), "A", 1)


def test_the_graders_own_message_does_not_name_the_hidden_seed(tmp_path):
    typed = "stage = Stage.GRADS_ACCUMULATING\nevidence = [3.3083, 6.1208, 8.5233]\n"
    answer = answer_source(typed, 1)
    run_hidden("D", KEY, 1, answer.source, str(tmp_path))
    record = judge_hidden("s1", tmp_path, "D", 1, answer, KEY)
    assert record.status == "failed" and "an unseen seed" in record.message, record.message
    _no_secret(_shown([record]), "D", 1)


def test_a_part2_fix_raising_its_seed_and_key_shows_neither(tmp_path, monkeypatch):
    monkeypatch.setenv(LEARNER_ENV, KEY)
    fix = _LEAK.format(env=LEARNER_ENV) + (
        "def fixed_step(model, optimizer, inputs, targets):\n"
        "    raise RuntimeError(f'seed={seed} s{seed} {seed} {key}')\n"
    )
    answer = answer_source(fix, 2)
    run_here("A", KEY, answer, tmp_path)
    record = judge_hidden("s1", tmp_path, "A", 2, answer, KEY)
    assert record.status == "failed" and HIDDEN in record.message, record.message
    _no_secret(_shown([record]), "A", 2)
