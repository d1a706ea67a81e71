"""A learner's notebook in-process: the namespace after the imports cell, and cells with readable source."""

from __future__ import annotations

import itertools
import linecache

import torch
import torch.nn.functional as F

import helpers
from autograd_instructor.challenge import NotAttempted, Variant
from autograd_instructor.challenge.exercise import Challenge
from helpers import make_tiny_problem

_CELLS = itertools.count()


def notebook(ex_id: str, variant: Variant | None = None) -> tuple[dict, Challenge]:
    """A namespace like an exercise notebook's after its imports cell."""
    ns = {"seed": 0, "device": "cpu", "torch": torch, "F": F, "NotAttempted": NotAttempted}
    ns |= {name: getattr(helpers, name) for name in helpers.__all__}
    ex = Challenge(ex_id, ns, variant=variant)
    ns["ex"] = ex
    ns["inputs"], ns["targets"] = make_tiny_problem(0)
    ns["broken_setup"], ns["compute_loss"], ns["broken_step"] = ex.broken()
    return ns, ex


def run_cell(ns: dict, source: str) -> None:
    """Run source as a notebook cell does: its functions keep a source inspect can read (as in IPython)."""
    filename = f"<learner cell {next(_CELLS)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), ns)
