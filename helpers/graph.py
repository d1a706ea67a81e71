"""`autograd_graph`: the backward graph torch recorded, as data, a text tree and Mermaid."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import torch
from torch import nn

from helpers._validate import require_tensor

__all__ = ["AutogradGraph", "GraphNode", "autograd_graph", "backward_nodes"]


@dataclass(frozen=True)
class GraphNode:
    """A node: an operation's backward function, a leaf tensor, or the output itself."""

    id: str
    kind: str  # "output", "op" or "leaf"
    label: str
    shape: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        return f"GraphNode({self.id}, {self.kind}, {self.label!r})"


@dataclass
class AutogradGraph:
    """Nodes and forward-direction edges (input -> consumer) of a recorded graph."""

    nodes: dict[str, GraphNode] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)
    root: str | None = None

    @property
    def leaves(self) -> list[GraphNode]:
        """The leaf tensors autograd will accumulate .grad into."""
        return [n for n in self.nodes.values() if n.kind == "leaf"]

    @property
    def ops(self) -> list[str]:
        """Backward-function class names, output first."""
        return [n.label for n in self.nodes.values() if n.kind == "op"]

    def inputs_of(self, node_id: str) -> list[str]:
        """Ids of the nodes that feed node_id."""
        return [a for a, b in self.edges if b == node_id]

    def __repr__(self) -> str:
        if self.root is None:
            return "autograd graph: empty (not recorded: no grad_fn, not a leaf that requires grad)"
        inputs: dict[str, list[str]] = {}
        for a, b in self.edges:
            inputs.setdefault(b, []).append(a)
        lines: list[str] = []
        seen: set[str] = set()
        # (node, prefix of its line, is it its parent's last input, is it the root); a stack, not
        # recursion, so a graph thousands of operations deep (an unrolled RNN) still prints.
        stack: list[tuple[str, str, bool, bool]] = [(self.root, "", True, True)]
        while stack:
            node_id, prefix, last, top = stack.pop()
            text = _describe(self.nodes[node_id])
            if top:
                lines.append(text)
            else:
                again = " (see above)" if node_id in seen else ""
                lines.append(prefix + ("└── " if last else "├── ") + text + again)
            if node_id in seen:
                continue
            seen.add(node_id)
            children = inputs.get(node_id, [])
            child_prefix = prefix if top else prefix + ("    " if last else "│   ")
            for i in reversed(range(len(children))):
                stack.append((children[i], child_prefix, i == len(children) - 1, False))
        return "\n".join(lines)

    def to_mermaid(self) -> str:
        """A Mermaid flowchart, inputs at the top, the output at the bottom."""
        lines = ["flowchart TD"]
        for node in self.nodes.values():
            label = _describe(node).replace('"', "#quot;")
            shape = {"leaf": ('["', '"]'), "op": ('("', '")'), "output": ('[/"', '"/]')}[node.kind]
            lines.append(f"    {node.id}{shape[0]}{label}{shape[1]}")
        for a, b in self.edges:
            lines.append(f"    {a} --> {b}")
        lines.append("    classDef leaf fill:#e1f5fe,stroke:#0277bd")
        lines.append("    classDef output fill:#c8e6c9,stroke:#2e7d32")
        for kind in ("leaf", "output"):
            ids = [n.id for n in self.nodes.values() if n.kind == kind]
            if ids:
                lines.append(f"    class {','.join(ids)} {kind}")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        if self.root is None:
            return "*autograd graph: empty (the tensor was not recorded)*"
        return "```mermaid\n" + self.to_mermaid() + "\n```"


def backward_nodes(root: object) -> Iterator[object]:
    """Every backward node reachable from `root` (a tensor's grad_fn), once each, depth first.

    The toolkit's one walk of a recorded graph. A stack, not recursion, so a graph thousands of
    operations deep (an unrolled RNN) is walked too. A node whose `.variable` is set is a leaf
    (AccumulateGrad): autograd accumulates .grad into that tensor.
    """
    if root is None:
        return
    seen, stack = {root}, [root]
    while stack:
        fn = stack.pop()
        yield fn
        for child, _ in getattr(fn, "next_functions", ()):
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)


def _describe(node: GraphNode) -> str:
    if node.kind == "leaf":
        shape = "" if node.shape is None else f", shape {tuple(node.shape)}"
        return f"{node.label} (leaf{shape})"
    return node.label


def autograd_graph(
    tensor: torch.Tensor,
    names: Mapping[str, torch.Tensor] | nn.Module | None = None,
    *,
    name: str = "output",
) -> AutogradGraph:
    """Walk tensor.grad_fn back to the leaves; leaves are named from `names` (or a model)."""
    require_tensor(name, tensor)
    if not (names is None or isinstance(names, (Mapping, nn.Module))):
        raise TypeError(
            f"expected names to be a dict of name -> tensor or an nn.Module, got {type(names).__name__}"
        )
    if isinstance(names, nn.Module):
        names = dict(names.named_parameters())
    by_id = {id(t): n for n, t in (names or {}).items()}
    graph = AutogradGraph()
    if tensor.grad_fn is None and not tensor.requires_grad:
        return graph
    graph.root = "out"
    graph.nodes["out"] = GraphNode("out", "output", name, tuple(tensor.shape))
    if tensor.grad_fn is None:  # a leaf that requires grad: the graph is the tensor itself
        graph.nodes["out"] = GraphNode("out", "leaf", by_id.get(id(tensor), name), tuple(tensor.shape))
        return graph
    ids: dict[object, str] = {}
    counter = {"op": 0, "leaf": 0}

    def node_for(fn: object) -> tuple[str, bool]:
        if fn in ids:
            return ids[fn], False
        variable = getattr(fn, "variable", None)
        if variable is not None:
            counter["leaf"] += 1
            label = by_id.get(id(variable), f"leaf {counter['leaf']}")
            node = GraphNode(f"leaf{counter['leaf']}", "leaf", label, tuple(variable.shape))
        else:
            counter["op"] += 1
            node = GraphNode(f"op{counter['op']}", "op", type(fn).__name__)
        ids[fn] = node.id
        graph.nodes[node.id] = node
        return node.id, True

    first, _ = node_for(tensor.grad_fn)
    graph.edges.append((first, "out"))
    for fn in backward_nodes(tensor.grad_fn):
        consumer, _ = node_for(fn)
        for child, _ in getattr(fn, "next_functions", ()):
            if child is not None:
                graph.edges.append((node_for(child)[0], consumer))
    return graph
