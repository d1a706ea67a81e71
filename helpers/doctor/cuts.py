"""Where the path from parameters without a gradient to the loss is cut, read from how their module
ran in the step: never, with grad mode off, with an output that does not require grad (the cut is
inside its forward), or with one that does (the cut is after it, between its output and the loss).
"""

from __future__ import annotations

from helpers.doctor.findings import names_text
from helpers.doctor.module_runs import ModuleRun

__all__ = ["cut_lines"]


def _outermost(name: str, missing: set[str], requires: list[str]) -> str:
    """The outermost module (not the model itself) every trainable parameter of which lacks a gradient."""
    parts = name.split(".")[:-1]
    for depth in range(1, len(parts) + 1):
        prefix = ".".join(parts[:depth])
        if all(p in missing for p in requires if p.startswith(prefix + ".")):
            return prefix
    return ".".join(parts)


def _where(module: str, run: ModuleRun | None) -> str:
    if run is None or not run.calls:
        return f"'{module}' never ran in this step: its forward is not called on the way to the loss"
    if not run.grad_on:
        return f"'{module}' ran with grad mode off (torch.no_grad() around its call): no graph was recorded"
    if not run.output_requires_grad:
        return (
            f"'{module}' ran with grad mode on, but its output does not require grad: the path is cut "
            "inside its forward (.detach(), .data, torch.no_grad() or a non-differentiable op there)"
        )
    return (
        f"the output of '{module}' requires grad (the forward recorded a graph through its parameters), "
        f"but no gradient came back: the path is cut after '{module}', between its output and the loss "
        "(the loss does not use it, or a .detach(), .data, .item() or .numpy() on the way)"
    )


def cut_lines(missing: list[str], requires: list[str], runs: dict[str, ModuleRun]) -> list[str]:
    """One evidence line per outermost module whose parameters got no gradient: where its path is cut."""
    gone = set(missing)
    groups: dict[str, list[str]] = {}
    for name in missing:
        if "." in name:  # a parameter of the model itself has no module of its own to look at
            groups.setdefault(_outermost(name, gone, requires), []).append(name)
    return [f"{names_text(names, 3)}: {_where(module, runs.get(module))}" for module, names in groups.items()]
