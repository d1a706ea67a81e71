"""Save and restore everything a training step changes, so a diagnosis leaves no trace.

One copy of the state, no more: parameters and optimizer state are copied when
optimizer.step() is first called (after backward has freed the activations, so the copy and
the step's own peak do not coincide), gradients only when they hold something (None stays
None, zeros are zeroed back), and on an accelerator every copy lives in host memory. The
gradients found are held by weak reference only: when the step drops them (zero_grad sets
.grad to None) their memory is freed as in plain training, and the copy becomes the gradient
again. A parameter that changes outside optimizer.step() cannot be restored: a fingerprint
check warns.

Other optimizers the step uses (a GAN's second one) are restored too: their param groups, their
state (Adam's moments), their schedulers and the parameters they move, also outside the model.
Those train_step refers to are known from the start (`others`), so the .grad of their parameters
outside the model is saved as the model's is; one found only when it steps (`keep_other`) has
its groups, state and parameters saved then.
"""

from __future__ import annotations

import copy
import random
import sys
import warnings
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import nn

from helpers._stats import abs_max, host_floats, on_device
from helpers.doctor.saved_optimizer import SavedOptimizer
from helpers.doctor.saved_optimizer import save_tensor as _save
from helpers.parameters import moved_elements

__all__ = ["TrainingState"]

GradScaler = torch.amp.GradScaler
LRScheduler = torch.optim.lr_scheduler.LRScheduler


def _fingerprint(t: torch.Tensor) -> torch.Tensor:
    """sum, L2 norm, min and max of a tensor, 1-dim float64 on its device (for a changed check).

    Reductions without temporaries (no float64 copy of the tensor): computed during backward,
    they must not add to the step's peak memory.
    """
    v = t.detach()
    if v.numel() == 0 or not v.is_floating_point():
        return torch.zeros(4, dtype=torch.float64, device=v.device)
    low, high = torch.aminmax(v)
    return torch.stack([v.sum(), torch.linalg.vector_norm(v), low, high]).double()


class TrainingState:
    """Parameters, their .grad, buffers, train/eval flags, optimizer state, RNG states, the
    learning-rate schedulers and the GradScalers of the step, and other optimizers (`others`).

    Tensors are restored in place (`copy_`), so every tensor object the caller holds (a
    parameter, its `.grad`, an Adam moment, the scaler's scale) is the same object afterwards,
    with the same values; a `.grad` that nobody holds any more is given back as its copy. Call
    `keep(param)` before a parameter may change and `keep_optimizer()` before optimizer.step()
    (the probe's hooks do).
    """

    @torch.no_grad()
    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        schedulers: Iterable[Any] = (),
        scalers: Iterable[GradScaler] = (),
        others: Iterable[torch.optim.Optimizer] = (),
    ) -> None:
        self.model, self.optimizer = model, optimizer
        others = list(others)
        self.optimizers = {id(o): SavedOptimizer(o) for o in (optimizer, *others)}
        outside = (p for o in others for g in o.param_groups for p in g["params"])
        params = _unique([*model.parameters(), *outside])  # the model's, then other optimizers'
        self.params = params
        self.late: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}  # parameters first seen at a step
        self.flags = [(p, p.requires_grad) for p in params]
        self.kept: dict[int, torch.Tensor] = {}  # id(param) -> its value before diagnose changed it
        self.start_prints = torch.stack([_fingerprint(p) for p in params]) if params else None
        grads = [p.grad for p in params]
        present = [g for g in grads if g is not None]
        zero = host_floats([abs_max(g) for g in present]) if present else []
        zero_flags = iter(z == 0.0 for z in zero)
        # (parameter, weak reference to its .grad, a copy of it; None for an all-zero .grad)
        self.grads: list[tuple[nn.Parameter, weakref.ref | None, torch.Tensor | None]] = []
        for p, g in zip(params, grads):
            if g is None:
                self.grads.append((p, None, None))
            else:  # all-zero gradients are zeroed back; others are copied
                self.grads.append((p, weakref.ref(g), None if next(zero_flags) else _save(g)))
        del grads, present
        self.buffers = [(b, _save(b)) for b in model.buffers()]
        self.training = [(m, m.training) for m in model.modules()]
        self.schedulers = [(s, copy.deepcopy(s.state_dict())) for s in schedulers]
        self.scalers = [(s, s.state_dict()) for s in scalers]
        self.cpu_rng = torch.get_rng_state()
        self.cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
        self.py_rng = random.getstate()
        numpy = sys.modules.get("numpy")
        self.np_rng = numpy.random.get_state() if numpy is not None else None

    @torch.no_grad()
    def keep(self, param: torch.Tensor) -> None:
        """Copy a parameter's value, once, before it can change."""
        if id(param) not in self.kept:
            self.kept[id(param)] = _save(param)

    @torch.no_grad()
    def keep_optimizer(self) -> None:
        """Copy every parameter not copied yet and the optimizer state, once, before a step."""
        for p in self.params:
            self.keep(p)
        self.optimizers[id(self.optimizer)].keep_state()

    @torch.no_grad()
    def keep_other(
        self, optimizer: torch.optim.Optimizer, schedulers: Callable[[], Iterable[Any]] = tuple
    ) -> None:
        """Before any optimizer's step: copy its state and the parameters it moves, once.

        One not known from the start is saved here, with the schedulers `schedulers()` finds for
        it; the .grad of its parameters outside the model has already changed and is not restored.
        """
        if id(optimizer) not in self.optimizers:
            self.optimizers[id(optimizer)] = SavedOptimizer(optimizer)
            self.schedulers += [(s, copy.deepcopy(s.state_dict())) for s in schedulers()]
        self.optimizers[id(optimizer)].keep_state()
        tracked = {id(p) for p in self.params}
        for p in (p for g in optimizer.param_groups for p in g["params"]):
            if id(p) in tracked:
                self.keep(p)
            elif id(p) not in self.late:
                self.late[id(p)] = (p, _save(p))

    def non_finite_names(self) -> list[str]:
        """Names of the model's parameters that held NaN or Inf when the state was taken (from the
        fingerprints' min and max, read back once; nothing when every one is finite)."""
        if self.start_prints is None:
            return []
        finite = torch.isfinite(self.start_prints[:, 2:]).all(dim=1)
        if bool(finite.all()):
            return []
        ids = {id(p): n for n, p in self.model.named_parameters()}
        return [ids[id(p)] for p, ok in zip(self.params, finite.tolist()) if not ok and id(p) in ids]

    def before(self, param: torch.Tensor) -> torch.Tensor | None:
        """The value a parameter had when diagnose began, if it was copied."""
        return self.kept.get(id(param))

    @torch.no_grad()
    def restore(self) -> None:
        """Put every saved value back."""
        for p, requires_grad in self.flags:
            kept = self.kept.get(id(p))
            if kept is not None:
                p.copy_(kept)
            p.requires_grad_(requires_grad)
        self._check_uncopied()
        self.kept.clear()
        for p, ref, value in self.grads:
            grad = ref() if ref is not None else None
            if grad is not None:  # still held (by the step or the caller): the same object
                grad.copy_(value) if value is not None else grad.zero_()
            elif ref is not None:  # dropped by the step and held by nobody: the copy takes its place
                grad = on_device(value, p.device) if value is not None else torch.zeros_like(p)
            p.grad = grad
        for b, value in self.buffers:
            b.copy_(value)
        for m, training in self.training:
            m.training = training
        for p, value in self.late.values():
            p.copy_(value)
        self.late.clear()
        for saved in self.optimizers.values():
            saved.restore()
        self._restore_schedulers()
        torch.set_rng_state(self.cpu_rng)
        if self.cuda_rng is not None:
            torch.cuda.set_rng_state_all(self.cuda_rng)
        random.setstate(self.py_rng)
        numpy = sys.modules.get("numpy")
        if numpy is not None and self.np_rng is not None:
            numpy.random.set_state(self.np_rng)

    def _restore_schedulers(self) -> None:
        for s, saved in self.schedulers:
            s.load_state_dict(copy.deepcopy(saved))
        for s, saved in self.scalers:
            s.load_state_dict(saved)

    def _check_uncopied(self) -> None:
        """Warn if a parameter changed without passing through a backward or an optimizer step."""
        if self.start_prints is None:
            return
        missing = [i for i, p in enumerate(self.params) if id(p) not in self.kept]
        if not missing:
            return
        now = torch.stack([_fingerprint(self.params[i]) for i in missing])
        before = self.start_prints[missing]
        changed = moved_elements(now, before).any(dim=1)
        if bool(changed.any()):
            warnings.warn(
                "diagnose could not restore parameters that train_step changed outside backward and "
                "optimizer.step() (e.g. an in-place update before the forward pass)",
                RuntimeWarning,
                stacklevel=3,
            )

    def __repr__(self) -> str:
        return (
            f"TrainingState({len(self.params)} parameters, {len(self.buffers)} buffers, "
            f"{len(self.optimizers)} optimizers, {len(self.schedulers)} schedulers, "
            f"{len(self.scalers)} scalers)"
        )


def _unique(tensors: Iterable[torch.Tensor]) -> list[torch.Tensor]:
    """Each tensor once, in order (a parameter may sit in the model and in another optimizer)."""
    seen: set[int] = set()
    return [t for t in tensors if not (id(t) in seen or seen.add(id(t)))]
