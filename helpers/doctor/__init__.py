"""The doctor: `diagnose` runs your training step under instrumentation and walks the debugging
checklist; `watch_non_finite` finds the first module that makes a NaN or Inf.

Its machinery lives here, apart from the core toolkit: saving and restoring the training state
(state.py, saved_optimizer.py), the per-step probe (probe.py), the checklist as data
(checklist.py), finding the step's schedulers, GradScaler and other optimizers (discover.py),
looking ahead in a schedule on a copy (lookahead.py), torch.compile handling (compiled.py), what a
model carries between steps that it should not (carried.py), which modules a step ran and how, the
model's and those neither the model nor an optimizer holds (module_runs.py), and where the path
from parameters without a gradient to the loss is cut (cuts.py). What a step computes, beside its
plumbing: the step's trace (trace.py, loss_calls.py, buffer_weights.py) and one module per check,
run after its stage's own (computed.py): modules in eval mode, undetached targets and probabilities
fed to a logits loss (targets.py), terms without gradient (dead_terms.py), warnings, clip calls,
modules under several names, leaves no optimizer holds, buffers used as weights; what an OK report
checked (coverage.py); findings that may be intended (intended.py).
"""

from helpers.doctor.checklist import CHECKLIST, Check
from helpers.doctor.diagnosis import Diagnosis, diagnose
from helpers.doctor.nonfinite import NonFiniteEvent, NonFiniteWatch, watch_non_finite

__all__ = [
    "CHECKLIST",
    "Check",
    "Diagnosis",
    "NonFiniteEvent",
    "NonFiniteWatch",
    "diagnose",
    "watch_non_finite",
]
