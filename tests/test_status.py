"""GradStatus and Stage: the vocabularies, in the order the toolkit decides them."""

import torch
from torch import nn

from helpers import GradStatus, Stage, classify_parameter_gradients
from helpers.doctor.checklist import ADVICE, CHECKLIST


def test_the_checklist_checks_the_stages_in_the_order_stage_declares_them():
    assert [c.stage for c in CHECKLIST] == [s for s in Stage if s is not Stage.OK]


def test_every_stage_has_advice():
    assert set(ADVICE) == set(Stage)
    assert all(text.strip() for text in ADVICE.values())


def _param(grad: torch.Tensor | None, requires_grad: bool = True) -> nn.Parameter:
    p = nn.Parameter(torch.ones(3), requires_grad=requires_grad)
    p.grad = grad
    return p


def test_grad_status_is_decided_in_the_order_of_its_members():
    model = nn.Module()
    model.frozen_nan = _param(torch.full((3,), float("nan")), requires_grad=False)  # FROZEN wins
    model.missing_outside = _param(None)  # NO_GRAD wins over NOT_IN_OPTIMIZER
    model.nan_outside = _param(torch.full((3,), float("nan")))  # NON_FINITE_GRAD over NOT_IN_OPTIMIZER
    model.zero_outside = _param(torch.zeros(3))  # NOT_IN_OPTIMIZER over ZERO_GRAD
    model.zero = _param(torch.zeros(3))
    model.ok = _param(torch.ones(3))
    optimizer = torch.optim.SGD([model.frozen_nan, model.zero, model.ok], lr=0.1)
    model.plain = [_param(torch.full((3,), float("nan")))]  # UNREGISTERED over NON_FINITE_GRAD
    status = classify_parameter_gradients(model, optimizer).status
    assert status == {
        "frozen_nan": GradStatus.FROZEN,
        "missing_outside": GradStatus.NO_GRAD,
        "nan_outside": GradStatus.NON_FINITE_GRAD,
        "zero_outside": GradStatus.NOT_IN_OPTIMIZER,
        "zero": GradStatus.ZERO_GRAD,
        "ok": GradStatus.OK,
        "plain[0]": GradStatus.UNREGISTERED,
    }
    decided = [status[n] for n in ("frozen_nan", "plain[0]", "missing_outside", "nan_outside")]
    decided += [status[n] for n in ("zero_outside", "zero", "ok")]
    assert decided == list(GradStatus)


def test_every_member_explains_itself_and_reprs_by_name():
    for member in [*GradStatus, *Stage]:
        assert isinstance(member.value, str) and member.value.strip()
        assert repr(member) == f"{type(member).__name__}.{member.name}"
    assert len({s.value for s in GradStatus}) == len(GradStatus)
    assert len({s.value for s in Stage}) == len(Stage)
