"""Torch's global RNG in the grader's process, whose threads judge in parallel: one section at a time.

The grader's trusted runs of the broken code seed and draw from torch's global generator, as the code
the learner was given does (`torch.manual_seed(seed)`, then `TinyNet()`): a reference proof
(challenge/hidden.py), the broken training (challenge/parts.py), its first steps (challenge/reference.py),
the replay's model and optimizer (fixing/fixcheck.py). `torch.random.fork_rng` puts the state back
afterwards but keeps no other thread out: two such sections at once draw from each other's stream
(other weights, another verdict). Each of them runs inside `global_rng()`, so judging itself needs no
lock; what only reads tensors (loading a run, comparing, the replay's arithmetic) runs in parallel.
A section may redirect stdout too: inside the lock, redirections are undone in the order they were made.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import torch

__all__ = ["global_rng"]

_LOCK = threading.RLock()  # re-entrant: a cached reference run may start inside another section


@contextlib.contextmanager
def global_rng(fork: bool = True) -> Iterator[None]:
    """Hold torch's global RNG for this thread; fork: put its state back afterwards (as fork_rng)."""
    with _LOCK, torch.random.fork_rng(devices=[], enabled=fork):
        yield
