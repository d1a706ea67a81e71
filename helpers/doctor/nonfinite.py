"""`watch_non_finite`: where a NaN or an Inf first appeared, in the forward or the backward pass."""

from __future__ import annotations

import contextlib
import math
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import torch
from torch import nn
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

from helpers._stats import abs_max, count_nonfinite, host_floats, on_device
from helpers._table import html_report_table, text_table
from helpers._validate import require_module
from helpers.doctor.compiled import called_through_compiled, run_eagerly, unwrap_compiled
from helpers.finite import NonFiniteError

__all__ = ["NonFiniteEvent", "NonFiniteWatch", "watch_non_finite"]


@dataclass(frozen=True)
class NonFiniteEvent:
    """One tensor that held NaN or Inf: the pass, the module, which tensor, and the counts."""

    phase: str  # "forward", "loss" (the tensor backward() started from) or "backward"
    module: str  # qualified module name; "" is the model itself
    tensor: str  # "output", "output[1]", "input[0]", "grad input[0]", "grad weight", ...
    nan: int | None  # None: unknown (the gradient was not kept), at least one NaN or Inf
    inf: int | None
    pass_index: int  # 1 for the first forward (or backward) pass seen under the watch
    after: str | None = None  # an input made between modules: the last module that finished before it

    @property
    def where(self) -> str:
        """A readable location, e.g. "backward #1: grad input[0] of 'act'"."""
        if self.phase == "loss":
            return f"loss #{self.pass_index}: the tensor backward() started from, computed after the model"
        name = repr(self.module) if self.module else "the model"
        return f"{self.phase} #{self.pass_index}: {self.tensor} of {name}"

    def __repr__(self) -> str:
        return (
            f"NonFiniteEvent({self.phase!r}, module={self.module!r}, tensor={self.tensor!r}, "
            f"nan={self.nan}, inf={self.inf}, pass_index={self.pass_index})"
        )


def _checkable(value: Any) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and (value.is_floating_point() or value.is_complex())
        and not value.is_nested
        and value.layout == torch.strided
        and value.device.type != "meta"
    )


def _tensors(value: Any, label: str) -> Iterator[tuple[str, torch.Tensor]]:
    """(label, tensor) for every checkable tensor in a nest of tuples, lists and dicts."""
    if isinstance(value, torch.Tensor):
        if _checkable(value):
            yield label, value
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _tensors(v, f"{label}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _tensors(v, f"{label}[{k!r}]")


def _version(t: torch.Tensor) -> int:
    """t's in-place version counter; inference tensors have none (and cannot change in place here)."""
    return 0 if t.is_inference() else t._version


def _flag(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(min t, max t) as 0-dim tensors on t's device: both finite exactly when t holds no NaN or Inf.

    One reduction without a temporary (aminmax), and nothing more on the device: max |t| is
    made from the two on the host, at the read. A minimum or maximum of finite values never
    overflows, so a flag is never a false alarm, in any dtype. A complex tensor is flagged by |z|.
    """
    if t.is_complex():
        magnitude = abs_max(t)
        return magnitude, magnitude
    return torch.aminmax(t)


def _max_abs(low: float, high: float) -> float:
    """max |t| from min t and max t: NaN when either is NaN, else Inf when either is infinite."""
    return math.nan if math.isnan(low) or math.isnan(high) else max(-low, high)


@dataclass
class _Pending:
    """A tensor's flag, still on the device, waiting for the next read."""

    phase: str
    index: int
    module: str
    tensor: str
    low: torch.Tensor
    high: torch.Tensor
    recount: Callable[[], Any] | None
    after: str | None = None


def _keeper(t: torch.Tensor) -> Callable[[], torch.Tensor | None]:
    """Find a forward tensor again at the read: held (detached) with grad mode on, else weakly."""
    # With grad mode on most outputs are saved for backward anyway; under no_grad (inference)
    # holding every activation would raise peak memory, so only a weak reference is kept.
    if torch.is_grad_enabled():
        kept = t.detach()
        return lambda: kept
    ref = weakref.ref(t)
    return ref


@contextlib.contextmanager
def _wrapper_calls_ignored() -> Iterator[None]:
    """Silence torch's warning that process-wide module hooks also fire for a torch.compile
    wrapper: the watch's hooks pass on only the model's own modules, so that call is ignored."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r"Using `torch\.compile\(module\)` when there are global hooks"
        )
        yield


def _recomputing() -> bool:
    """Whether a forward runs inside a backward pass: activation checkpointing recomputing a region
    the watch already checked in the forward pass (not a new forward pass)."""
    return torch._C._current_autograd_node() is not None


def _count(n: int | None) -> int | str:
    return "?" if n is None else n


class NonFiniteWatch:
    """Hooks that find NaN and Inf in module outputs and in the gradients each module produces.

    Forward: every module's output (and the model's own inputs) gets a one-reduction flag;
    with grad mode on the tensor is held (detached) until the read, so NaN and Inf counts are
    exact, under no_grad only weakly.
    Backward: the gradient with respect to every module input that requires grad (a tensor
    hook registered before the module runs, so an in-place module is measured on what it
    produced) and every parameter's gradient get exact NaN and Inf counts. Nothing is read
    during a pass: everything stays on the device until the model's forward call ends, or
    `.first`, `.events` or the exit asks; one host read then collects the forward pass and
    the backward pass before it, whatever the number of modules (one more, only when
    something was not finite, counts the forward tensors that were flagged).

    A forward tensor whose only non-finite values are -inf, some finite, is a mask (a float causal
    mask, the logits of illegal actions): listed in `.masks`, not in `.events`, unless something else
    in its pass is not finite. The watch's own reductions are never recorded by autograd, and a
    forward that backward recomputes (activation checkpointing) is not checked again.
    No hook keeps the incoming gradient, so autograd can still hand it to `.grad` uncopied.
    With `raise_on_first=True` every hook reads its tensor at once (a host read per module
    and per gradient: slow, for teaching) and raises NonFiniteError at the first bad one.
    """

    _columns = ("phase", "pass", "module", "tensor", "nan", "inf")

    def __init__(self, model: nn.Module, raise_on_first: bool = False) -> None:
        require_module(model, allow_empty=True)
        if not isinstance(raise_on_first, bool):
            raise TypeError(f"expected raise_on_first to be True or False, got {raise_on_first!r}")
        model, self._given_compiled = unwrap_compiled(model)
        self.model, self.raise_on_first = model, raise_on_first
        self._names = {id(m): name for name, m in model.named_modules()}
        self._handles: list[Any] = []  # module and parameter hooks
        self._tensor_handles: list[Any] = []  # hooks on module inputs that may still fire
        self._inputs: dict[tuple[int, int], tuple[weakref.ref, list[str]]] = {}  # hooked this forward
        self._outputs: dict[int, tuple[weakref.ref, int]] = {}  # this forward's checked tensors
        self._last_done = ""  # the module whose forward finished last
        self.compiled = False  # whether compiled code was found and runs eagerly under the watch
        self._eager: contextlib.ExitStack | None = None  # eager mode and warning filter, while active
        self._autograd_backward: Callable[..., Any] | None = None  # the one replaced while active
        self._pending: list[_Pending] = []
        self._passes = {"forward": 0, "backward": 0}
        self._in_pass = {"forward": False, "backward": False}
        self._events: list[NonFiniteEvent] = []
        self._made = 0  # events made so far: their order
        self._shown: list[tuple[int, NonFiniteEvent]] = []  # (order, event) of .events
        self._masked: list[tuple[int, NonFiniteEvent]] = []  # (order, event) of .masks
        self._depth = 0
        self.reads = 0  # host reads the watch itself made

    # ---- recording -------------------------------------------------------------------------
    def _start(self, phase: str) -> int:
        if not self._in_pass[phase]:
            self._in_pass[phase] = True
            self._passes[phase] += 1
        if phase == "forward":  # a backward after this forward is a new backward pass
            self._in_pass["backward"] = False
        return self._passes[phase]

    def _record(
        self,
        phase: str,
        module: str,
        label: str,
        t: torch.Tensor,
        recount: Callable[[], Any] | None = None,
        after: str | None = None,
    ) -> None:
        """Queue t's flag for the next read; recount finds t again then, for exact counts."""
        index = self._start("forward" if phase == "loss" else phase)
        if self.raise_on_first:
            with torch.no_grad():
                nan, inf = (int(v) for v in count_nonfinite(t).tolist())
                masking = phase == "forward" and inf and not nan and not bool(t.detach().max().isinf())
            self.reads += 1 + bool(inf and not nan)
            if nan or inf:
                event = NonFiniteEvent(phase, module, label, nan, inf, index, after)
                self._file([(event, masking)])
                if masking:  # only -inf: a mask, unless its pass turns non-finite (then it is shown)
                    return
                v = t.detach()
                sample = v[~torch.isfinite(v)].flatten()[:5].tolist()
                raise NonFiniteError(event.where, nan, inf, sample, t.numel())
            return
        if t.numel() == 0:
            return  # nothing in it can be NaN or Inf
        with torch.no_grad():  # the watch's own reductions are not recorded (a checkpoint counts what is)
            low, high = _flag(t)
        self._pending.append(_Pending(phase, index, module, label, low, high, recount, after))

    def _forward_pre(self, module: nn.Module, args: tuple) -> None:
        name = self._names.get(id(module), "?")
        if module is self.model:
            self._depth += 1
            if self._depth == 1:
                self._last_done = ""
                self.compiled = self.compiled or called_through_compiled(self.model)
                for label, t in _tensors(args, "input"):
                    self._outputs[id(t)] = (weakref.ref(t), _version(t))
                    self._record("forward", name, label, t, _keeper(t))
        else:  # an input no module produced was made in the parent's forward, between modules
            for label, t in _tensors(args, "input"):
                if not self._seen(t):
                    self._outputs[id(t)] = (weakref.ref(t), _version(t))
                    self._record("forward", name, label, t, _keeper(t), after=self._last_done)
        if not torch.is_grad_enabled():
            return
        for label, t in _tensors(args, "grad input"):
            if not t.requires_grad:
                continue
            cell = self._cell(t)
            if cell is not None:
                cell[:] = [name, label]  # an inner module consumes the same tensor: it is more precise
                continue
            self._hook_gradient(t, [name, label])

    def _cell(self, t: torch.Tensor) -> list[str] | None:
        """The [module, label] t's gradient is flagged under, if hooked: at this version (an in-place
        op makes a new version with its own gradient), and this very tensor, not one at a reused id."""
        known = self._inputs.get((id(t), t._version))
        return known[1] if known is not None and known[0]() is t else None

    def _hook_gradient(self, t: torch.Tensor, cell: list[str]) -> None:
        """Flag the gradient backward computes for t, under the module and label in cell."""
        self._inputs[(id(t), t._version)] = (weakref.ref(t), cell)
        self._tensor_handles.append(t.register_hook(self._input_grad_hook(cell)))

    def _hook_outputs(self, output: Any) -> dict[tuple[int, int], tuple[weakref.ref, list[str]]]:
        """Flag the gradient the model's outputs receive: a NaN there came from outside the model (the
        loss), before any module's backward ran. A tensor a module took as input is flagged already.
        Returns the new entries: a module that takes an output later (a loss module) relabels them."""
        name = self._names.get(id(self.model), "")
        hooked = {}
        for label, t in _tensors(output, "grad output"):
            if t.requires_grad and self._cell(t) is None:
                self._hook_gradient(t, [name, label])
                key = (id(t), t._version)
                hooked[key] = self._inputs[key]
        return hooked

    def _any_forward_pre(self, module: nn.Module, args: tuple) -> None:
        if id(module) in self._names and not _recomputing():
            self._forward_pre(module, args)

    def _any_forward_post(self, module: nn.Module, args: tuple, output: Any) -> None:
        if id(module) in self._names and not _recomputing():
            self._forward_post(module, args, output)

    def _input_grad_hook(self, cell: list[str]) -> Callable[[torch.Tensor], None]:
        def hook(grad: torch.Tensor) -> None:
            if self._handles and _checkable(grad):
                self._record("backward", cell[0], cell[1], grad)  # a flag; nothing kept

        return hook

    def _seen(self, t: torch.Tensor) -> bool:
        """Whether this tensor, at this version (in-place ops make new ones), was checked this pass."""
        seen = self._outputs.get(id(t))
        return seen is not None and seen[0]() is t and seen[1] == _version(t)

    def _forward_post(self, module: nn.Module, args: tuple, output: Any) -> None:
        name = self._names.get(id(module), "?")
        for label, t in _tensors(output, "output"):
            if self._seen(t):
                continue  # the inner module that produced it was checked first
            self._outputs[id(t)] = (weakref.ref(t), _version(t))
            self._record("forward", name, label, t, _keeper(t))
        self._last_done = name
        if module is self.model:
            self._depth -= 1
            if self._depth == 0:
                outputs = self._hook_outputs(output) if torch.is_grad_enabled() else {}
                self._end_forward()
                self._inputs.update(outputs)

    def _param_hook(self, module: str, label: str, param: nn.Parameter) -> Callable[[torch.Tensor], None]:
        ref = weakref.ref(param)

        def grad_now() -> torch.Tensor | None:
            p = ref()
            return None if p is None else p.grad

        def hook(grad: torch.Tensor) -> None:
            if _checkable(grad):
                self._record("backward", module, label, grad, grad_now)  # a flag; nothing kept

        return hook

    def _on_backward(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """torch.autograd.backward (loss.backward() calls it), flagging the tensors it starts from: a NaN
        born in the loss, after every module's output was finite, is seen there."""

        def backward(tensors: Any, *args: Any, **kwargs: Any) -> Any:
            roots = [tensors] if isinstance(tensors, torch.Tensor) else tensors
            nested = torch._C._current_graph_task_id() != -1  # a reentrant checkpoint's recompute, no loss
            for t in roots if isinstance(roots, (list, tuple)) and not nested else ():
                if _checkable(t) and self._passes["forward"]:
                    self._in_pass["forward"] = True  # the loss belongs to the forward pass before it
                    self._record("loss", "", "loss", t, _keeper(t))
                    self._in_pass["forward"] = False
            return original(tensors, *args, **kwargs)

        return backward

    def _end_forward(self) -> None:
        self._in_pass["forward"] = False
        self._outputs.clear()
        self._inputs.clear()
        self._tensor_handles = [h for h in self._tensor_handles if h.hooks_dict_ref() is not None]
        self._read()

    # ---- reading ---------------------------------------------------------------------------
    @torch.no_grad()
    def _read(self) -> None:
        """Read every pending flag with one host read; count the non-finite ones (one more read)."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        device = pending[0].low.device
        numbers = host_floats([p.low for p in pending] + [p.high for p in pending])
        bounds = list(zip(numbers, numbers[len(pending) :]))
        flags = [_max_abs(low, high) for low, high in bounds]
        self.reads += 1
        bad = [(p, f) for p, f in zip(pending, flags) if not math.isfinite(f)]
        # only -inf: the minimum is -inf, the maximum finite (no NaN, no +inf)
        minus_inf = [
            low == -math.inf and math.isfinite(high)
            for (low, high), f in zip(bounds, flags)
            if not math.isfinite(f)
        ]
        found = [p.recount() if p.recount is not None else None for p, _ in bad]
        found = [t if isinstance(t, torch.Tensor) and _checkable(t) else None for t in found]
        live = [on_device(count_nonfinite(t), device) for t in found if t is not None]
        recounted = iter(torch.stack(live).tolist() if live else [])
        self.reads += bool(live)
        made = []
        for (p, flag), t, only_minus_inf in zip(bad, found, minus_inf):
            if t is not None:
                nan, inf = (int(v) for v in next(recounted))
                if nan or inf:
                    event = NonFiniteEvent(p.phase, p.module, p.tensor, nan, inf, p.index, p.after)
                else:  # overwritten since (zero_grad, an in-place op): what the flag proves
                    event = self._lower_bound(p, flag)
            else:  # never kept (gradients w.r.t. inputs) or freed since: what the flag proves
                event = self._lower_bound(p, flag)
            made.append((event, p.phase == "forward" and only_minus_inf))
        self._file(made)

    def _file(self, made: list[tuple[NonFiniteEvent, bool]]) -> None:
        """Keep each event, in the order made. A forward tensor holding only -inf is a mask (a causal
        mask, the logits of illegal actions): kept apart, in `.masks`, unless something else in its
        pass is non-finite (a NaN from -inf - -inf, an infinite loss's gradient): then it is shown."""
        for event, masking in made:
            self._made += 1
            (self._masked if masking else self._shown).append((self._made, event))
        passes = {e.pass_index for _, e in self._shown}
        self._shown += [m for m in self._masked if m[1].pass_index in passes]
        self._masked = [m for m in self._masked if m[1].pass_index not in passes]
        self._shown.sort(key=lambda m: m[0])
        self._events = [e for _, e in self._shown]

    @staticmethod
    def _lower_bound(p: _Pending, flag: float) -> NonFiniteEvent:
        """An infinite sum proves Inf and no NaN; a NaN sum, NaN or Infs of both signs."""
        nan = None if math.isnan(flag) else 0
        return NonFiniteEvent(p.phase, p.module, p.tensor, nan, None, p.index, p.after)

    # ---- context manager -------------------------------------------------------------------
    def __enter__(self) -> NonFiniteWatch:
        if self._handles:
            raise RuntimeError("this watch is already active; create a new one with watch_non_finite()")
        # Two process-wide module hooks that pass on only this model's modules: installing and
        # removing two hooks, not two per module, is most of what a watch around one step costs.
        self._handles.append(register_module_forward_pre_hook(self._any_forward_pre))
        self._handles.append(register_module_forward_hook(self._any_forward_post, always_call=True))
        compiled = any(unwrap_compiled(module)[1] for module in self.model.modules())
        for qualified, p in self.model.named_parameters():  # a tied parameter once, as its first owner's
            if p.requires_grad:
                module_name, _, pname = qualified.rpartition(".")
                self._handles.append(p.register_hook(self._param_hook(module_name, f"grad {pname}", p)))
        self.compiled = self._given_compiled or compiled
        self._autograd_backward = torch.autograd.backward
        torch.autograd.backward = self._on_backward(self._autograd_backward)
        self._eager = contextlib.ExitStack()
        self._eager.enter_context(run_eagerly())
        self._eager.enter_context(_wrapper_calls_ignored())
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for handle in self._handles + self._tensor_handles:
            handle.remove()
        self._handles, self._tensor_handles = [], []
        if self._autograd_backward is not None:
            torch.autograd.backward, self._autograd_backward = self._autograd_backward, None
        if self._eager is not None:
            self._eager.__exit__(None, None, None)
            self._eager = None
        self._inputs.clear()
        self._outputs.clear()
        self._depth = 0
        self._in_pass = {"forward": False, "backward": False}
        self._read()

    # ---- results ---------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether the hooks are installed right now."""
        return bool(self._handles)

    @property
    def events(self) -> list[NonFiniteEvent]:
        """Every non-finite tensor seen so far, in the order they were produced."""
        self._read()
        return list(self._events)

    @property
    def masks(self) -> list[NonFiniteEvent]:
        """Forward tensors that held -inf and nothing else non-finite, while nothing else in their pass
        was: masks by design (a float causal mask, illegal actions' logits), not in `.events`."""
        self._read()
        return [e for _, e in self._masked]

    @property
    def first(self) -> NonFiniteEvent | None:
        """The first non-finite event, or None when everything was finite."""
        self._read()
        return self._events[0] if self._events else None

    def _rows(self) -> list[list[object]]:
        return [
            [
                e.phase,
                e.pass_index,
                e.module or "(model)",
                e.tensor,
                _count(e.nan),
                _count(e.inf),
            ]
            for e in self._events
        ]

    def _caption(self) -> str:
        eager = "; compiled code ran eagerly (torch.compiler.set_stance('force_eager'))"
        return (
            f"{self._passes['forward']} forward and {self._passes['backward']} backward passes, "
            f"{len(self._events)} non-finite tensors"
            + (f", {len(self._masked)} masks holding only -inf" if self._masked else "")
            + (eager if self.compiled else "")
        )

    def __repr__(self) -> str:
        self._read()
        state = "active" if self.active else "inactive"
        head = f"NonFiniteWatch({state}, {self._caption()})"
        rows = self._rows()
        return head if not rows else head + "\n" + text_table(self._columns, rows)

    def _repr_html_(self) -> str:
        self._read()
        return html_report_table(self._columns, self._rows(), caption=f"non-finite watch: {self._caption()}")


def watch_non_finite(model: nn.Module, raise_on_first: bool = False) -> NonFiniteWatch:
    """`with watch_non_finite(model) as w: step()` then `w.first`: where NaN or Inf first appeared.

    Reads the host once per forward pass, which also collects the backward pass before it, and
    once at exit. `raise_on_first=True` raises NonFiniteError at the first non-finite tensor
    instead, at the cost of a host read per module.
    """
    return NonFiniteWatch(model, raise_on_first)
