"""GPT-2 from transformers (a tiny config built in code, tied head) under the toolkit: Hugging
Face's linear warm-up starts at lr 0, and the tied head is one parameter, registered once."""

from __future__ import annotations

import pytest
import torch
from real_models import gpt2_tiny

from helpers import GradStatus, Stage, classify_parameter_gradients, diagnose, gradient_report

pytestmark = pytest.mark.realmodel


def _training():
    transformers = pytest.importorskip("transformers")
    model = gpt2_tiny()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    schedule = transformers.get_linear_schedule_with_warmup(optimizer, 3, 100)  # lr 0 at step 1
    tokens = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(0))

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = model(tokens, labels=tokens).loss
        loss.backward()
        optimizer.step()
        schedule.step()
        return loss

    return model, optimizer, schedule, step


def test_hugging_face_warm_up_from_lr_zero_is_ok_and_leaves_the_schedule_alone():
    model, optimizer, schedule, step = _training()
    verdict = diagnose(step, model, optimizer)
    assert verdict.stage is Stage.OK, verdict
    assert any("step 1 ran with lr [0.0]" in e for e in verdict.evidence)
    assert schedule.last_epoch == 0 and optimizer.param_groups[0]["lr"] == 0.0


def test_the_tied_head_is_one_registered_parameter():
    model, optimizer, _, step = _training()
    step()
    report = gradient_report(model)
    classes = classify_parameter_gradients(model, optimizer)
    assert "lm_head.weight" not in report.status and report.unregistered == []
    assert report.status["transformer.wte.weight"] is GradStatus.OK
    assert set(classes.status.values()) == {GradStatus.OK}
