"""The hints of a graded release: where to look and what to measure, never which stage it is.

Practice hints (catalogue.py, parts.py) may lead straight to the stage: practice has solutions. A
graded notebook's hints are the same for every bug that lives in the same function: they name that
function (broken_setup, compute_loss or broken_step) and the toolkit measurements that cover what it
is responsible for, so they help a learner start without telling them the answer.
"""

from __future__ import annotations

from autograd_instructor.challenge.catalogue import BUGS, FIXABLE
from autograd_instructor.challenge.variants import Variant

__all__ = ["graded_hints"]

_MEASURE = {
    "broken_setup": (
        "it builds the model and the optimizer. Compare what the model holds with what it registers "
        "(parameter_report(model)), what each tensor's requires_grad says, what the optimizer holds "
        "(optimizer.param_groups) and what one broken step changes (snapshot_parameters before, "
        "parameter_changes after, classify_parameter_gradients(model, optimizer))."
    ),
    "compute_loss": (
        "it computes the loss. Call compute_loss(model, inputs, targets) on its own and measure what it "
        "returns (debug_tensor, assert_finite, autograd_graph(loss, model)), then one backward() on it "
        "under expect_error (gradient_report(model), grad_norm(model))."
    ),
    "broken_step": (
        "it runs one training step. Run several broken steps in a row under expect_error and keep, per "
        "step, what the loss is (debug_tensor), what the gradients are (grad_norm(model), "
        "gradient_report(model)) and what moved (snapshot_parameters, parameter_changes)."
    ),
}


def graded_hints(variant: Variant, part: int) -> tuple[str, ...]:
    """The graded hints of one part for one variant (two, from general to specific)."""
    where = BUGS[variant.bug].where
    if part == 1:
        return (
            f"The planted bug is in {where}: read that function line by line against a training step "
            "you trust. Your evidence is something you measure on the broken code, not a sentence.",
            f"Look at {where}: {_MEASURE[where]} The first measurement that is not what a working step "
            "gives is your evidence; the stage is what it shows.",
        )
    fixed = next(name for name, original in FIXABLE.items() if original == where)
    return (
        f"Your part 1 evidence says what goes wrong; the line that makes it so is in {where}. Define "
        f"{fixed} (copy {where} from the code above and change what breaks); the check runs the broken "
        "code with yours in its place.",
        f"Measure your fixed {where} as you measured the broken one: {_MEASURE[where]} Every "
        "measurement should now look like a working step's.",
    )
