"""Your-turn activities of lesson 15 · Bugs from the field: registration."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import whole_number_of
from autograd_course.yourturn.choice import offering, strings_of
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]

LEAVES = {"a", "c", "e"}
NOT_LEAVES = {  # why each tensor that is not a leaf is not one: the misconception behind choosing it
    "b": "b: .double() is an operation on a tensor that requires grad, so its result is not a leaf",
    "d": "d: nn.Parameter is a leaf, but .to(float64) on it is an operation: its result is a copy",
}


def _stack_parameter_count() -> int:
    """How many tensors Stack().parameters() lists, asked of torch itself."""
    import torch
    from torch import nn

    class Stack(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
            self.extra = (nn.Linear(4, 4),)
            self.scale = torch.ones(1, requires_grad=True)
            self.head = nn.Linear(4, 1)

    return len(list(Stack().parameters()))


def _check_listed(listed: Any) -> tuple:
    given = listed
    listed = whole_number_of(given)
    if listed is None:
        return incorrect(f"expected a whole number of tensors, got {given!r}")
    actual = _stack_parameter_count()
    if listed == actual:
        return correct(
            f"{actual}: two Linear layers in the ModuleList and the head, a weight and a bias each; "
            "the tuple's layer and the plain tensor are not registered."
        )
    if listed in (actual + 1, actual + 2, actual + 3):
        return incorrect(
            f"{listed} counts something that is not registered: a tuple is not a ModuleList, "
            "and a plain tensor is not a Parameter"
        )
    if listed == 3:
        return incorrect(
            "3 counts modules; parameters() lists tensors: each Linear holds a weight and a bias"
        )
    return incorrect(f"{listed} is not it: count weight and bias of each registered Linear")


@offering(lambda: LEAVES | set(NOT_LEAVES))
def _check_leaves(leaves: Any) -> tuple:
    given = strings_of(leaves)
    if given is None:
        return incorrect(f'expected a set of names such as {{"a", "b"}}, got {leaves!r}')
    names = {n.strip().lower() for n in given}
    if names == LEAVES:
        return correct(
            "a: .to('cpu') on a CPU tensor returns it; c and e ask for gradients after the last operation. "
            "b and d are copies made by an operation: not leaves."
        )
    wrong = [NOT_LEAVES[n] for n in sorted(names - LEAVES) if n in NOT_LEAVES]
    unknown = sorted(names - LEAVES - NOT_LEAVES.keys())
    if unknown:
        return incorrect(f"{unknown} are not among the five tensors a to e")
    left_out = len(LEAVES - names)
    also = (
        [f"{left_out} of the leaves {'is' if left_out == 1 else 'are'} not in your set"] if left_out else []
    )
    return incorrect("; ".join(wrong + also) + ". Is any operation recorded after requires_grad was set?")


def _graph_leaves(out: Any) -> list:
    """The tensors the graph of `out` accumulates gradients into (one per AccumulateGrad node)."""
    found, stack, seen = [], [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


def _experts_problem(FixedExperts: Any, n: int) -> str | None:
    """What is wrong with FixedExperts(n=n): a sentence, or None when it registers and trains everything."""
    import torch

    torch.manual_seed(0)
    model, x = FixedExperts(n=n, dim=4), torch.randn(5, 4)
    out = model(x)
    listed = {id(p) for p in model.parameters()}
    hidden = [tuple(t.shape) for t in _graph_leaves(out) if id(t) not in listed]
    if hidden:
        return (
            f"with n={n}, the forward trains tensors of shapes {hidden} that model.parameters() does not list"
        )
    if len(listed) != 2 * n + 3:
        return (
            f"with n={n}, model.parameters() lists {len(listed)} tensors, not {2 * n + 3}: a weight and a"
            " bias per expert and for the router, and the temperature, which must learn"
        )
    if model.double()(x.double()).dtype != torch.float64:
        return f"with n={n}, model.double() leaves the output in {out.dtype}"
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    model(x.double()).pow(2).mean().backward()
    optimizer.step()
    if any(torch.equal(b, p) for b, p in zip(before, model.parameters())):
        return f"with n={n}, one SGD step leaves some parameters where they were"
    return None


def _check_experts(FixedExperts: Any) -> tuple:
    from torch import nn

    if not (isinstance(FixedExperts, type) and issubclass(FixedExperts, nn.Module)):
        return incorrect(f"expected a class, a subclass of nn.Module, got {FixedExperts!r}")
    for n in (3, 2):
        problem = _experts_problem(FixedExperts, n)
        if problem:
            return incorrect(problem)
    return correct(
        "every tensor the forward trains is registered: parameters(), .double() and the optimizer see the"
        " experts, the router and the temperature, for any n."
    )


def _hiding_models() -> list[tuple[str, Any, set[str]]]:
    """(what it is, a model, the attributes that hold trainable tensors parameters() misses)."""
    import torch
    from torch import nn

    stack = nn.Module()
    stack.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
    stack.extra = (nn.Linear(4, 4),)
    stack.scale = torch.ones(1, requires_grad=True)
    stack.head = nn.Linear(4, 1)
    lm = nn.Module()
    lm.out = nn.Linear(4, 4)
    lm.h0 = torch.zeros(1, 4, requires_grad=True).to(torch.float64)  # a non-leaf copy, still trainable
    lm.experts = {"a": nn.Linear(4, 4), "b": nn.Linear(4, 4)}
    clean = nn.Module()
    clean.blocks = nn.ModuleDict({"a": nn.Linear(4, 4)})
    clean.mask = torch.ones(4)  # a tensor that does not require grad
    clean.sizes, clean.names = (4, 4), ["a", "b"]
    clean.frozen = [nn.Linear(4, 4).requires_grad_(False)]  # nothing in it trains
    clean.learned = nn.Parameter(torch.ones(1))
    return [
        ("15.1's Stack", stack, {"extra", "scale"}),
        ("a model with a copy and a dict", lm, {"h0", "experts"}),
        ("a model that registers all it trains", clean, set()),
    ]


def _check_hidden(hidden_tensors: Any) -> tuple:
    if not callable(hidden_tensors):
        return incorrect(f"expected a function hidden_tensors(model), got {hidden_tensors!r}")
    for what, model, wanted in _hiding_models():
        found = strings_of(hidden_tensors(model))
        if found is None:
            return incorrect(f"expected a set of attribute names, got {hidden_tensors(model)!r} for {what}")
        if found != wanted:
            return incorrect(
                f"for {what}, your function returns {sorted(found)}; it holds {len(wanted)} such attributes"
            )
    return correct(
        "your function finds every attribute that holds a trainable tensor model.parameters() misses, in a"
        " tuple, a dict or bare, and nothing registered or not trainable."
    )


ACTIVITIES = (
    Activity(
        id="15.1",
        task=(
            "Predict how many tensors model.parameters() lists for Stack (ModuleList, tuple, plain "
            "tensor, head)."
        ),
        names=("listed",),
        check=_check_listed,
        hints=(
            "Only Modules, Parameters and the nn containers are registered; a tuple and a plain tensor "
            "are not.",
            "Each nn.Linear holds two tensors: weight and bias.",
        ),
        solution="listed = 6",
    ),
    Activity(
        id="15.2",
        task="Predict which of five tensors made with requires_grad and .to/.double are leaves.",
        names=("leaves",),
        check=_check_leaves,
        hints=(
            "A tensor is a leaf when no recorded operation made it: requires_grad set last, or no copy "
            "at all.",
            "t.to('cpu') on a CPU tensor returns t itself; a change of dtype makes a copy.",
        ),
        solution='leaves = {"a", "c", "e"}',
    ),
    Activity(
        id="15.3",
        task="Write FixedExperts: Experts with every tensor its forward trains registered, for any n.",
        names=("FixedExperts",),
        check=_check_experts,
        hints=(
            "Which attributes does nn.Module.__setattr__ register? Which two of Experts' three are not?",
            "A list of modules needs a container that registers; a tensor to learn needs nn.Parameter.",
        ),
        solution=(
            "class FixedExperts(nn.Module):\n"
            "    def __init__(self, n: int = 3, dim: int = 4) -> None:\n"
            "        super().__init__()\n"
            "        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n)])\n"
            "        self.router = nn.Linear(dim, n)\n"
            "        self.temperature = nn.Parameter(torch.ones(1))\n"
            "\n"
            "    def forward(self, x):\n"
            "        weights = torch.softmax(self.router(x) / self.temperature, dim=-1)\n"
            "        outputs = torch.stack([expert(x) for expert in self.experts], dim=-1)\n"
            "        return (outputs * weights.unsqueeze(1)).sum(-1)"
        ),
    ),
    Activity(
        id="15.4",
        task="Write hidden_tensors(model): attributes holding trainable tensors that parameters() misses.",
        names=("hidden_tensors",),
        check=_check_hidden,
        hints=(
            "vars(model) holds the plain attributes; registered modules and parameters live in its _modules"
            " and _parameters dictionaries, so compare with model.parameters() by identity (id(p)).",
            "Look inside lists, tuples and dicts: a module's trainable tensors are its parameters() that"
            " require grad; a bare tensor counts when it requires grad.",
        ),
        solution=(
            "def hidden_tensors(model):\n"
            "    listed = {id(p) for p in model.parameters()}\n"
            "    found = set()\n"
            "    for name, value in vars(model).items():\n"
            "        items = value.values() if isinstance(value, dict) else value\n"
            "        items = items if isinstance(value, (list, tuple, dict)) else [value]\n"
            "        for item in items:\n"
            "            tensors = item.parameters() if isinstance(item, nn.Module) else [item]\n"
            "            for t in tensors:\n"
            "                if isinstance(t, torch.Tensor) and t.requires_grad and id(t) not in listed:\n"
            "                    found.add(name)\n"
            "    return found"
        ),
    ),
)
