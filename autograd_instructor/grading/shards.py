"""Shards: grade a deterministic 1/N of the students per machine, then merge the outputs."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from autograd_instructor.grading.results import read_results

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


def _shard_of(folder: Path, meta: dict) -> tuple[int, int]:
    if "shard" not in meta:
        raise ShardError(
            f"--merge: {folder} is not a `grade --shard K/N` output (its grading.json names no shard)"
        )
    return parse_shard(meta["shard"])


def _check_complete(seen: dict[int, Path], total: int) -> None:
    missing = [f"{k}/{total}" for k in range(1, total + 1) if k not in seen]
    if missing:
        raise ShardError(f"--merge: incomplete set of shards, missing {', '.join(missing)}; nothing merged")


def merge_outputs(shards: list[Path], out: Path) -> tuple[list, dict]:
    """Records and metadata of every shard's output; their executed/ notebooks copied into out.

    Refused (ShardError, naming them): a folder given twice, two outputs of the same shard, a set
    that lacks a shard of its N, shards of different N, rosters or policies, a student in two shards.
    """
    records, meta, seen, owner = [], {}, {}, {}
    for folder in shards:
        if not (folder / "results.json").exists():
            raise ShardError(f"--merge: {folder} has no results.json; expected a `grade --shard` output")
        got, m = read_results(folder)
        k, n = _shard_of(folder, m)
        total = meta.get("total", n)
        if n != total:
            raise ShardError(f"--merge: {folder} is shard {k}/{n}, the others are of {total}")
        if k in seen:
            raise ShardError(f"--merge: shard {k}/{n} given twice: {seen[k]} and {folder}")
        seen[k] = folder
        if meta and (m.get("policy"), m.get("roster_ids")) != (meta.get("policy"), meta.get("roster_ids")):
            raise ShardError(f"--merge: {folder} was graded with another roster or --solution-viewed policy")
        for student in sorted({r.student for r in got}):
            if owner.setdefault(student, folder) != folder:
                raise ShardError(f"--merge: student {student!r} is in both {owner[student]} and {folder}")
        records += got
        names = meta.get("names", {}) | m.get("names", {})
        canvas_ids = meta.get("canvas_ids", {}) | m.get("canvas_ids", {})
        matching = sorted(set(meta.get("matching", [])) | set(m.get("matching", [])))
        warning = meta.get("warning") or m.get("warning", "")
        meta = {k2: v for k2, v in m.items() if k2 != "shard"} | {
            "names": names,
            "canvas_ids": canvas_ids,
            "matching": matching,
            "warning": warning,
            "total": n,
        }
    _check_complete(seen, meta.get("total", 0))
    for folder in shards:
        if (folder / "executed").is_dir():
            shutil.copytree(folder / "executed", out / "executed", dirs_exist_ok=True)
    meta.pop("total", None)
    return records, meta
