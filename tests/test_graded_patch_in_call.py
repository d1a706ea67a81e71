"""A fix that patches torch, the model or the optimizer only while its own call runs, and puts it back
before returning, fails: the given code, left broken, trains correctly under the patch, so the
harness notes at every torch call the fix makes whether torch, the toolkit's TinyNet or an optimizer
is what it was before the fix ran. The replay still judges everything else (an update faked by a
patched step, a changed forward). Honest fixes, which change nothing of torch, pass. Part 2's runs
happen in a child process (fixcells.run_apart), as the grader's kernel runs them."""

from __future__ import annotations

import pytest

from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.grading.fixcells import run_apart
from autograd_instructor.grading.judging import judge_part


def _judge(tmp_path, ex_id: str, source: str):
    answer = answer_source(source, 2)
    run_apart(ex_id, None, answer, tmp_path)
    return judge_part(tmp_path, ex_id, 2, answer, None)


def _patched(owner: str, name: str, replacement: str, call: str, fixed: str, args: str) -> str:
    """A fixed function that swaps owner.name for replacement, calls the given code, and swaps it back."""
    return (
        f"def {fixed}({args}):\n"
        f"    original = {owner}.{name}\n"
        f"{replacement}"
        f"    {owner}.{name} = replacement\n"
        f"    try:\n        return {call}({args})\n"
        f"    finally:\n        {owner}.{name} = original\n"
    )


_STEP = "model, optimizer, inputs, targets"
_LOSS = "model, inputs, targets"
# Exercise A: compute_loss detaches the output. D: zero_grad is missing. B: fc1 is frozen.
ATTACKS = {
    "torch.Tensor.detach, to nothing": (
        "A",
        _patched(
            "torch.Tensor",
            "detach",
            "    def replacement(self):\n        return self\n",
            "compute_loss",
            "fixed_compute_loss",
            _LOSS,
        ),
    ),
    "torch.Tensor.backward, clearing the grads first": (
        "D",
        _patched(
            "torch.Tensor",
            "backward",
            "    def replacement(self, *a, **k):\n        model.zero_grad()\n"
            "        return original(self, *a, **k)\n",
            "broken_step",
            "fixed_step",
            _STEP,
        ),
    ),
    "torch.optim.Adam.step, clearing the grads after": (
        "D",
        _patched(
            "torch.optim.Adam",
            "step",
            "    def replacement(self, *a, **k):\n        out = original(self, *a, **k)\n"
            "        self.zero_grad()\n        return out\n",
            "broken_step",
            "fixed_step",
            _STEP,
        ),
    ),
    "TinyNet.forward, unfreezing first": (
        "B",
        _patched(
            "TinyNet",
            "forward",
            "    def replacement(self, x):\n        for p in self.parameters():\n"
            "            p.requires_grad_(True)\n        return original(self, x)\n",
            "broken_step",
            "fixed_step",
            _STEP,
        ),
    ),
    "torch.nn.functional.mse_loss, on an undetached copy": (
        "A",
        "def fixed_compute_loss(model, inputs, targets):\n"
        "    original = F.mse_loss\n"
        "    F.mse_loss = lambda out, y: original(model(inputs), y)\n"
        "    try:\n        return compute_loss(model, inputs, targets)\n"
        "    finally:\n        F.mse_loss = original\n",
    ),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_patch_undone_within_the_fixs_own_call_fails_flagged(tmp_path, attack):
    ex_id, source = ATTACKS[attack]
    verdict, flags, problem, _ = _judge(tmp_path, ex_id, source)
    assert verdict.status == "failed", (attack, verdict.message)
    assert "while your fix ran" in verdict.message, verdict.message
    assert any("while your fix ran" in f for f in flags), flags
    assert not problem


@pytest.mark.parametrize(
    ("ex_id", "source"),
    [
        (
            "A",
            "def fixed_compute_loss(model, inputs, targets):\n"
            "    with torch.enable_grad():\n        out = model(inputs)\n"
            "    return F.mse_loss(out, targets)\n",
        ),
        (
            "D",
            "def fixed_step(model, optimizer, inputs, targets):\n    optimizer.zero_grad(set_to_none=False)\n"
            "    loss = compute_loss(model, inputs, targets)\n    loss.backward()\n    optimizer.step()\n"
            "    return loss\n",
        ),
    ],
)
def test_an_honest_fix_changes_nothing_and_passes(tmp_path, ex_id, source):
    verdict, flags, problem, _ = _judge(tmp_path, ex_id, source)
    assert not problem and verdict.status == "passed", verdict.message
    assert flags == []
