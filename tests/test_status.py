"""GradStatus and Stage: the exact vocabularies, in the order the checklist decides them."""

from helpers import GradStatus, Stage


def test_grad_status_members_in_decision_order():
    assert [s.name for s in GradStatus] == [
        "FROZEN",
        "UNREGISTERED",
        "NO_GRAD",
        "NON_FINITE_GRAD",
        "NOT_IN_OPTIMIZER",
        "ZERO_GRAD",
        "OK",
    ]


def test_stage_members_in_checklist_order():
    assert [s.name for s in Stage] == [
        "GRAD_MODE_DISABLED",
        "FORWARD_NON_FINITE",
        "LOSS_NOT_IN_GRAPH",
        "PARAMS_FROZEN",
        "BACKWARD_FAILED",
        "GRAD_MISSING",
        "GRAD_NON_FINITE",
        "GRAD_MAGNITUDE",
        "PARAMS_UNREGISTERED",
        "NOT_IN_OPTIMIZER",
        "GRADS_ACCUMULATING",
        "PARAMS_NOT_UPDATED",
        "OK",
    ]


def test_every_member_explains_itself_and_reprs_by_name():
    for member in [*GradStatus, *Stage]:
        assert isinstance(member.value, str) and member.value.strip()
        assert repr(member) == f"{type(member).__name__}.{member.name}"
    assert len({s.value for s in GradStatus}) == len(GradStatus)
    assert len({s.value for s in Stage}) == len(Stage)
