"""The import graph of autograd_course and helpers (module level and inside functions) has no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("autograd_course", "autograd_instructor", "helpers")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "content" not in path.relative_to(ROOT).parts:
                found[_module_name(path)] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports anywhere in its file (functions included)."""
    is_package = path.name == "__init__.py"
    base = name if is_package else name.rpartition(".")[0]
    targets = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # A `if __name__ == "__main__":` block counts too: `python -m module` runs it, and a circle through
    # it is still a circle a reader has to untangle.
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                module = ".".join(anchor + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            submodules = {f"{module}.{alias.name}" for alias in node.names} & known
            # `from pkg import mod` needs mod; `from pkg import name` needs pkg itself
            targets |= submodules if len(submodules) == len(node.names) else {module, *submodules}
    resolved = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def import_graph() -> dict[str, set[str]]:
    """{module: the project modules it imports}."""
    modules = _modules()
    return {name: _imports(name, path, set(modules)) for name, path in modules.items()}


def package_of(module: str) -> str:
    """autograd_instructor.grading.grade -> autograd_instructor.grading; helpers.x -> helpers."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "autograd_course" else parts[0]


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph as [a, b, ..., a], or [] when it has none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return []


def test_find_cycle_reports_a_planted_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_import_graph_sees_imports_inside_functions(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from autograd_instructor.grading import grade\n")
    known = {"autograd_instructor.grading", "autograd_instructor.grading.grade", "m"}
    assert _imports("m", path, known) == {"autograd_instructor.grading.grade"}


def test_no_module_imports_itself_in_a_circle():
    cycle = find_cycle(import_graph())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_no_package_imports_itself_in_a_circle():
    packages: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        mine = package_of(module)
        packages.setdefault(mine, set()).update(package_of(t) for t in targets if package_of(t) != mine)
    cycle = find_cycle(packages)
    assert not cycle, "package import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize(
    "low, high",
    [
        ("helpers", "autograd_course"),
        ("autograd_instructor.challenge", "autograd_instructor.grading"),
        ("autograd_instructor.challenge", "autograd_instructor.regression"),
        ("autograd_course.execution", "autograd_instructor.grading"),
        ("autograd_course.execution", "autograd_instructor.regression"),
        ("autograd_instructor.regression", "autograd_instructor.grading"),
    ],
)
def test_imports_run_one_way(low, high):
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if module == low or module.startswith(low + ".")
        for target in targets
        if target == high or target.startswith(high + ".")
    )
    assert not wrong, f"{low} must not import {high}: {wrong}"


def test_import_graph_sees_imports_in_a_main_block(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('if __name__ == "__main__":\n    from autograd_course.cli import main\n')
    assert _imports("m", path, {"autograd_course.cli", "m"}) == {"autograd_course.cli"}
