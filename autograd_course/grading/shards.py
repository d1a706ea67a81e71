"""Shards: grade a deterministic 1/N of the students per machine, then merge the outputs."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from autograd_course.grading.results import read_results

__all__ = ["ShardError", "in_shard", "merge_outputs", "parse_shard"]


class ShardError(ValueError):
    """A --shard or --merge that cannot be used; the message says what was expected."""


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' -> (K, N) with 1 <= K <= N."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ShardError(f"--shard expects K/N such as 2/8, got {text!r}") from None
    if not 1 <= k <= n:
        raise ShardError(f"--shard K/N needs 1 <= K <= N, got {text!r}")
    return k, n


def in_shard(student: str, k: int, n: int) -> bool:
    """True when the student belongs to shard K of N (by sha256 of the id: stable across machines)."""
    return int(hashlib.sha256(student.encode()).hexdigest(), 16) % n == k - 1


def merge_outputs(shards: list[Path], out: Path) -> tuple[list, dict]:
    """Records and metadata of every shard's output; their executed/ notebooks copied into out."""
    records, meta = [], {}
    for folder in shards:
        if not (folder / "results.json").exists():
            raise ShardError(f"--merge: {folder} has no results.json; expected a `grade --shard` output")
        got, m = read_results(folder)
        records += got
        if meta and (m.get("policy"), m.get("roster_ids")) != (meta.get("policy"), meta.get("roster_ids")):
            raise ShardError(f"--merge: {folder} was graded with another roster or --solution-viewed policy")
        names = meta.get("names", {}) | m.get("names", {})
        warning = meta.get("warning") or m.get("warning", "")
        meta = m | {"names": names, "warning": warning}
        if (folder / "executed").is_dir():
            shutil.copytree(folder / "executed", out / "executed", dirs_exist_ok=True)
    return records, meta
