"""Your-turn activities of lesson 08 · NaN born in backward."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.choice import which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


def _zero_distance_pairs(points_b: Any, left_b: Any, right_b: Any) -> list[int]:
    """Positions in left_b / right_b of the pairs of two equal rows: distance 0, where sqrt's slope is inf."""
    import torch

    return [
        i
        for i, (a, b) in enumerate(zip(left_b.tolist(), right_b.tolist()))
        if torch.equal(points_b[a], points_b[b])
    ]


def _check_nan_pairs(nan_pairs: Any, points_b: Any, left_b: Any, right_b: Any) -> tuple:
    values = nan_pairs.tolist() if hasattr(nan_pairs, "tolist") else nan_pairs
    if not isinstance(values, (list, tuple)) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        return incorrect(f"expected a list of pair indices (ints) such as [0, 5], got {nan_pairs!r}")
    found, right = sorted(values), _zero_distance_pairs(points_b, left_b, right_b)
    rows = sorted({r for i in right for r in (left_b[i].item(), right_b[i].item())})
    if found == right:
        return correct(
            f"pairs {right}: each compares two equal rows of points_b ({rows}), distance 0, "
            "where sqrt's derivative is inf."
        )
    if found == rows:
        return incorrect(f"{rows} are rows of points_b; the task asks for positions in left_b / right_b")
    if not found:
        return incorrect("the batch gradient is NaN, so at least one pair's own gradient is non-finite")
    if set(found) < set(right):
        return incorrect(f"{found} is non-finite, but not the only one: check every pair's gradient")
    return incorrect(
        f"{found} is not it: compute vmap(grad(pair_loss), in_dims=(None, 0, 0, 0)) on points_b[left_b], "
        "points_b[right_b], then torch.isfinite per pair"
    )


def _check_anomaly_node(anomaly_node: Any) -> tuple:
    if anomaly_node is None:
        return incorrect(
            "it does raise: 0 * inf is NaN, and here it is made inside a backward node; which one multiplies?"
        )
    if not isinstance(anomaly_node, str):
        return incorrect(
            f"expected a node name as a string, such as 'MulBackward0', or None; got {anomaly_node!r}"
        )
    name = anomaly_node.strip().removesuffix("0").lower()
    if name == "sqrtbackward":
        return correct(
            "SqrtBackward0: the gradient reaching sqrt is already 0 (from * 0), "
            "and 0 * (1 / (2 sqrt(0))) is NaN."
        )
    if name == "mulbackward":
        return incorrect(
            "MulBackward0 returns grad * 0 = 0 for sqrt's output: finite. Where is 0 then multiplied by inf?"
        )
    if name == "powbackward":
        return incorrect("there is no ** here; the zero arrives first, so the NaN is made one node earlier")
    return incorrect(
        f"{anomaly_node!r} is not it: list the backward nodes of sqrt(v) * 0 and follow the gradient"
    )


def _losses_083() -> dict:
    """Five per-sample losses of (w, xi), each with the vmap options it runs under."""
    import torch

    return {
        "a": (lambda w, xi: (w * xi + 0.1 * torch.randn(4)).sum(), {}),
        "b": (lambda w, xi: (w * xi + 0.1 * torch.randn(4)).sum(), {"randomness": "same"}),
        "c": (lambda w, xi: (w * xi).sum().clamp(min=0), {}),
        "d": (lambda w, xi: (w * xi).sum() * float(xi.norm() > 1), {}),
        "e": (lambda w, xi: torch.where(xi.norm() > 1, (w * xi).sum(), 0.0), {}),
    }


def _refused_losses() -> dict[str, bool]:
    """Whether each loss's vmap(grad(...)) over six samples raises, found by running it."""
    import torch
    from torch.func import grad, vmap

    xs, w = torch.randn(6, 4, generator=torch.Generator().manual_seed(0)), torch.ones(4)
    refused = {}
    for letter, (loss, options) in _losses_083().items():
        try:
            vmap(grad(loss), in_dims=(None, 0), **options)(w, xs)
        except RuntimeError:
            refused[letter] = True
        else:
            refused[letter] = False
    return refused


WHY_083 = {
    "a": "random numbers inside vmap need randomness='same' or 'different'; the default 'error' refuses them",
    "b": "randomness='same' allows random numbers: one draw shared by the whole batch",
    "c": "clamp is a tensor operation, batched like any other",
    "d": "float(...) asks for one Python number, and under vmap the tensor holds one per sample",
    "e": "torch.where is a tensor operation: it picks per sample without asking Python for a number",
}
_check_refused = which_ones(_refused_losses, "make vmap(grad(loss)) raise", WHY_083)


ANGLE_ROWS = (  # (a, b): parallel, opposite, orthogonal, 45 degrees
    [[3.0, 4.0, 0.0], [1.0, 0.0, 0.0], [1.0, 2.0, 0.0], [1.0, 1.0, 0.0]],
    [[3.0, 4.0, 0.0], [-2.0, 0.0, 0.0], [-2.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
)


def _exact_angles() -> tuple:
    """The angles and their gradients in a, in float64, by the formula that is smooth away from 0 and pi."""
    import torch

    a = torch.tensor(ANGLE_ROWS[0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(ANGLE_ROWS[1], dtype=torch.float64)
    angles = torch.atan2(torch.linalg.cross(a, b).norm(dim=-1), (a * b).sum(-1))
    angles.sum().backward()
    return angles.detach().float(), a.grad.float()


def _check_safe_angle(safe_angle: Any) -> tuple:
    import torch

    if not callable(safe_angle):
        return incorrect(f"expected safe_angle to be a function, got {type(safe_angle).__name__}")
    a = torch.tensor(ANGLE_ROWS[0], requires_grad=True)
    out = safe_angle(a, torch.tensor(ANGLE_ROWS[1]))
    if not isinstance(out, torch.Tensor) or out.shape != (4,):
        return incorrect(f"expected one angle per row, a tensor of shape (4,), got {out!r}")
    angles, grads = _exact_angles()
    if not torch.allclose(out.detach(), angles, atol=2e-3):
        return incorrect(f"the angles should be within 2e-3 of {[round(v, 4) for v in angles.tolist()]}")
    out.sum().backward()
    if a.grad is None or not torch.isfinite(a.grad).all():
        return incorrect("the angles are right, but a.grad is not finite for the parallel and opposite rows")
    if not torch.allclose(a.grad[2:], grads[2:], atol=1e-4):
        return incorrect(
            "the gradient of the orthogonal and 45-degree rows changed: keep the angle's own slope"
        )
    return correct("finite where acos's slope is infinite, exact where the angle is between 0 and pi.")


ACTIVITIES = (
    Activity(
        id="08.1",
        task="Find the pairs of a new batch whose own gradient is non-finite, with per-sample gradients.",
        names=("nan_pairs",),
        check=_check_nan_pairs,
        context=("points_b", "left_b", "right_b"),
        hints=(
            "vmap(grad(pair_loss), in_dims=(None, 0, 0, 0))(params, points_b[left_b], points_b[right_b], "
            "torch.ones(8)) gives one gradient per pair.",
            "torch.isfinite(g['weight']).flatten(1).all(dim=1) is False for the pairs you want; "
            ".nonzero() lists them.",
        ),
        solution=(
            "g = vmap(grad(pair_loss), in_dims=(None, 0, 0, 0))(params, points_b[left_b], points_b[right_b], "
            "torch.ones(8))\n"
            "nan_pairs = (~torch.isfinite(g['weight']).flatten(1).all(dim=1)).nonzero().flatten().tolist()"
        ),
    ),
    Activity(
        id="08.2",
        task="Predict which backward node detect_anomaly names for (torch.sqrt(v) * 0).sum() at v = [0, 4].",
        names=("anomaly_node",),
        check=_check_anomaly_node,
        hints=(
            "Backward runs MulBackward0 first: it sends grad * 0 = 0 to sqrt's output.",
            "SqrtBackward0 then multiplies that 0 by 1 / (2 sqrt(0)) = inf.",
        ),
        solution='anomaly_node = "SqrtBackward0"',
    ),
    Activity(
        id="08.3",
        task="Predict which of five per-sample losses vmap(grad(...)) refuses to run.",
        names=("refused",),
        check=_check_refused,
        hints=(
            "vmap runs the function once for a whole batch: it cannot hand Python one number per sample.",
            "Random numbers need randomness='same' or 'different'; float(t), .item() and an if on a tensor"
            " ask for one Python number. clamp and torch.where are tensor operations.",
        ),
        solution='refused = {"a", "d"}',
    ),
    Activity(
        id="08.4",
        task="Fix angle(a, b), whose gradient is NaN for parallel rows, as safe_angle(a, b).",
        names=("safe_angle",),
        check=_check_safe_angle,
        hints=(
            "acos'(c) = -1 / sqrt(1 - c²) is infinite at c = 1 and c = -1: parallel and opposite rows.",
            "Keep acos away from ±1 (clamp the cosine to ±(1 - 1e-7)), or use atan2(|a × b|, a · b), which"
            " has no infinite slope.",
        ),
        solution=(
            "def safe_angle(a, b):\n"
            "    cos = (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1))\n"
            "    return torch.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7))"
        ),
    ),
)
