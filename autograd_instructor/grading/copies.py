"""Answers shared across learners with different variants, for the instructor to look at.

Two answers are the same when their code is, names aside: comments, spacing, quoting and the names
of variables, arguments and helpers do not count (the learner's own names for the fixed functions
and for the toolkit do). The default variant's reference answers (public in the repository) count as
one more learner. Nothing is decided here: the records are flagged, and summary.md lists them.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
from collections import defaultdict
from functools import cache

import nbformat

from autograd_course.course import course_root
from autograd_course.harness_core import FIXED_NAMES
from autograd_course.parsing import parse
from autograd_instructor.challenge.answer_source import answer_source
from autograd_instructor.challenge.draw import variant_for
from autograd_instructor.challenge.notebooks import challenge_cells
from autograd_instructor.challenge.parts import PARTS

__all__ = ["PUBLIC", "answer_digest", "flag_copies"]

PUBLIC = "the repository's default solution"  # who a copy of a public reference answer is shared with
_KEPT = {*dir(builtins), *FIXED_NAMES, "stage", "evidence"}


class _Anonymous(ast.NodeTransformer):
    """Every name the learner chose replaced by its order of first use."""

    def __init__(self, known: set[str]) -> None:
        self.known, self.names = known, {}

    def _name(self, name: str) -> str:
        if name in _KEPT or name in self.known:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self._name(node.arg)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self._name(node.name)
        return self.generic_visit(node)


def answer_digest(source: str, known: frozenset[str] = frozenset()) -> str:
    """A digest of the code of source, names aside ('' for no code); known: names kept as they are."""
    if not source.strip():
        return ""
    tree = _Anonymous(set(known)).visit(parse(source))
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def _committed(ex_id: str, part: int) -> list[str]:
    """The answer cells of the committed solutions/ notebook of one exercise ([] when not installed)."""
    found = sorted((course_root() / "solutions").glob(f"{ex_id}_*.ipynb"))
    if not found:
        return []
    nb = nbformat.read(found[0], as_version=4)
    return [
        nb.cells[i].source
        for i, m in challenge_cells(nb)
        if m.get("role") == "answer" and m.get("part") == part
    ]


@cache
def _public(ex_id: str, part: int) -> frozenset[str]:
    """Digests of the public answers of one part: the reference and the committed solution notebook."""
    sources = [PARTS[part]._solution(variant_for(None, ex_id)), *_committed(ex_id, part)]
    return frozenset(answer_digest(answer_source(s, part).source) for s in sources)


def flag_copies(records: list, answers: dict[tuple[str, str, int], tuple[str, str]]) -> None:
    """Flag each record whose answer another learner with another variant also gave.

    answers: (student, exercise, part) -> (digest, variant key) of every graded answer."""
    shared: dict[tuple[str, int, str], dict[str, str]] = defaultdict(dict)
    for (student, ex_id, part), (digest, variant) in answers.items():
        if digest:
            shared[ex_id, part, digest][student] = variant
    for (ex_id, part, digest), who in shared.items():
        if digest in _public(ex_id, part):
            who = who | {PUBLIC: json.dumps(variant_for(None, ex_id).to_json())}
        for record in records:
            mine = who.get(record.student)
            if record.exercise != ex_id or record.part != part or mine is None:
                continue
            others = sorted(s for s, v in who.items() if s != record.student and v != mine)
            if others:
                record.flags.append(f"the same answer as {', '.join(others[:5])} (another variant)")
