"""autograd_graph: the recorded backward graph as data, a text tree and Mermaid."""

import re

import pytest
import torch
from torch import nn

from helpers import AutogradGraph, TinyNet, autograd_graph
from helpers.graph import GraphNode

NODE = re.compile(r'^    (\w+)(\[/"|\("|\[")(.*)("/\]|"\)|"\])$')
EDGE = re.compile(r"^    (\w+) --> (\w+)$")


def _mermaid_parts(text: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Check every line of a flowchart; return node id -> label and the edges."""
    lines = text.splitlines()
    assert lines[0] == "flowchart TD"
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for line in lines[1:]:
        if m := NODE.match(line):
            opening, closing = m.group(2), m.group(4)
            assert {'[/"': '"/]', '("': '")', '["': '"]'}[opening] == closing, line
            assert '"' not in m.group(3), line  # quotes inside a label would end it early
            nodes[m.group(1)] = m.group(3)
        elif m := EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            assert re.match(r"^    (classDef \w+ [\w:#,]+|class [\w,]+ \w+)$", line), line
    assert all(a in nodes and b in nodes for a, b in edges), "every edge joins declared nodes"
    assert not {"end", "graph", "subgraph"} & set(nodes), "reserved words break Mermaid"
    return nodes, edges


def test_a_small_expression_as_data():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    graph = autograd_graph(y, {"x": x, "w": w}, name="y")
    assert isinstance(graph, AutogradGraph)
    assert graph.ops == ["SumBackward0", "MulBackward0"]
    assert sorted(leaf.label for leaf in graph.leaves) == ["w", "x"]
    assert all(isinstance(n, GraphNode) for n in graph.nodes.values())
    assert graph.root == "out" and graph.nodes["out"].label == "y"
    mul = next(n.id for n in graph.nodes.values() if n.label == "MulBackward0")
    assert sorted(graph.nodes[i].label for i in graph.inputs_of(mul)) == ["w", "x"]
    assert [graph.nodes[i].label for i in graph.inputs_of("out")] == ["SumBackward0"]
    assert len(graph.edges) == 4


def test_text_tree():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * 2).sum()
    assert repr(autograd_graph(y, {"x": x}, name="loss")) == "\n".join(
        [
            "loss",
            "└── SumBackward0",
            "    └── MulBackward0",
            "        └── ExpBackward0",
            "            └── x (leaf, shape (2,))",
        ]
    )


def test_shared_subexpression_is_one_node():
    x = torch.tensor([0.5], requires_grad=True)
    a = x.exp()
    y = a * a + a  # `a` feeds both the product (twice) and the sum
    graph = autograd_graph(y, {"x": x})
    assert graph.ops.count("ExpBackward0") == 1 and len(graph.leaves) == 1
    exp = next(n.id for n in graph.nodes.values() if n.label == "ExpBackward0")
    consumers = [graph.nodes[b].label for a_, b in graph.edges if a_ == exp]
    assert sorted(consumers) == ["AddBackward0", "MulBackward0", "MulBackward0"]
    text = repr(graph)
    assert text.count("ExpBackward0 (see above)") == 2 and text.count("x (leaf") == 1
    (reference,) = torch.autograd.grad(y, x)  # the graph is the one autograd differentiates
    assert torch.allclose(reference, 2 * a.detach() * a.detach() + a.detach())


def test_names_from_a_model():
    net = TinyNet(seed=0)
    graph = autograd_graph(net(torch.ones(2, 4)).sum(), net, name="loss")
    assert sorted(leaf.label for leaf in graph.leaves) == sorted(n for n, _ in net.named_parameters())
    shapes = {leaf.label: leaf.shape for leaf in graph.leaves}
    assert shapes == {n: tuple(p.shape) for n, p in net.named_parameters()}
    assert "ReluBackward0" in graph.ops


def test_unnamed_leaves_are_numbered():
    a, b = torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)
    graph = autograd_graph(a + b)
    assert sorted(leaf.label for leaf in graph.leaves) == ["leaf 1", "leaf 2"]


def test_a_detached_input_is_not_a_leaf_of_the_graph():
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    graph = autograd_graph((x.detach() * w).sum(), {"x": x, "w": w})
    assert [leaf.label for leaf in graph.leaves] == ["w"]


def test_constant_gives_an_empty_graph():
    for constant in (torch.ones(3), torch.ones(3, requires_grad=True).detach()):
        graph = autograd_graph(constant * 2)
        assert graph.root is None and graph.nodes == {} and graph.edges == [] and graph.leaves == []
        assert repr(graph).startswith("autograd graph: empty")
        assert "empty" in graph._repr_markdown_() and "```" not in graph._repr_markdown_()


def test_a_leaf_alone_is_a_one_node_graph():
    w = torch.zeros(2, 3, requires_grad=True)
    graph = autograd_graph(w, {"w": w})
    assert [(n.kind, n.label, n.shape) for n in graph.nodes.values()] == [("leaf", "w", (2, 3))]
    assert graph.edges == [] and repr(graph) == "w (leaf, shape (2, 3))"


def test_mermaid_is_a_valid_flowchart():
    net = TinyNet(seed=0)
    graph = autograd_graph(net(torch.ones(1, 4)).sum(), net, name='the "loss"')
    text = graph.to_mermaid()
    nodes, edges = _mermaid_parts(text)
    assert set(nodes) == set(graph.nodes)
    assert edges == graph.edges
    assert nodes["out"] == "the #quot;loss#quot;"
    leaf_ids = {n.id for n in graph.leaves}
    assert f"    class {','.join(n.id for n in graph.leaves)} leaf" in text.splitlines()
    assert all(nodes[i].endswith(")") and "(leaf, shape" in nodes[i] for i in leaf_ids)


def test_markdown_display_is_a_fenced_mermaid_block():
    x = torch.ones(2, requires_grad=True)
    graph = autograd_graph((x * 3).sum(), {"x": x})
    markdown = graph._repr_markdown_()
    assert markdown.startswith("```mermaid\n") and markdown.endswith("\n```")
    assert markdown[len("```mermaid\n") : -len("\n```")] == graph.to_mermaid()


def test_the_graph_is_left_usable():
    x = torch.ones(2, requires_grad=True)
    y = (x * 3).sum()
    autograd_graph(y)
    y.backward()  # walking the graph neither frees nor changes it
    assert torch.equal(x.grad, torch.full((2,), 3.0))


def test_a_graph_deeper_than_the_recursion_limit_prints():
    x = torch.ones(1, requires_grad=True)
    y = x
    for _ in range(1050):  # an unrolled loop, deeper than Python's default recursion limit
        y = y * 1.0
    graph = autograd_graph(y, {"x": x})
    assert len(graph.ops) == 1050
    lines = repr(graph).splitlines()
    assert len(lines) == 1 + 1050 + 1 and lines[-1].endswith("└── x (leaf, shape (1,))")


def test_bad_input_is_a_clear_error():
    x = torch.ones(1, requires_grad=True)
    expected = r"expected names to be a dict of name -> tensor or an nn\.Module, got list"
    with pytest.raises(TypeError, match=expected):
        autograd_graph(x * 2, [x])
    with pytest.raises(TypeError, match=r"expected 'output' to be a torch\.Tensor, got list"):
        autograd_graph([1.0])
    with pytest.raises(TypeError, match=r"expected 'loss' to be a torch\.Tensor, got Linear"):
        autograd_graph(nn.Linear(1, 1), name="loss")
