"""Your-turn activities of lesson 17 · Bugs from the field: the training loop."""

from __future__ import annotations

from typing import Any

from autograd_course.yourturn.answers import number_of
from autograd_course.yourturn.choice import offering, strings_of, which_ones
from autograd_course.yourturn.engine import Activity, correct, incorrect

__all__ = ["ACTIVITIES"]


KEEPS = {"loss", "penalty"}
NO_GRAPH = {  # why each value that keeps no graph keeps none: the misconception behind choosing it
    "accuracy": "accuracy: argmax has no gradient, so the accuracy is computed without a graph",
    "grad_norm": "grad_norm: clip_grad_norm_ reads .grad, which does not require grad",
    "lr": "lr: a Python float holds no tensor at all",
}


@offering(lambda: KEEPS | set(NO_GRAPH))
def _check_keeps_graph(keeps_graph: Any) -> tuple:
    options = {"loss", "accuracy", "grad_norm", "penalty", "lr"}
    names = strings_of(keeps_graph)
    if names is None:
        return incorrect(f'expected a set of names such as {{"lr"}}, got {keeps_graph!r}')
    if names - options:
        return incorrect(f"unknown names {sorted(names - options)}; choose among {sorted(options)}")
    if names == KEEPS:
        return correct(
            "loss and penalty are computed from parameters with grad mode on; argmax, .grad norms "
            "and a float carry no graph."
        )
    wrong = [NO_GRAPH[n] for n in sorted(names - KEEPS)]
    left_out = len(KEEPS - names)
    counted = "1 value that keeps a graph is" if left_out == 1 else f"{left_out} values that keep a graph are"
    also = [f"{counted} not in your set"] if left_out else []
    return incorrect(
        "; ".join(wrong + also) + ". Which values are tensors computed from parameters with grad on?"
    )


def _distance_moved() -> float:
    """How far one SGD step (lr 1) moves p when the scaled gradient is clipped before scaler.step."""
    import torch
    from torch import nn

    p = nn.Parameter(torch.zeros(2))
    optimizer = torch.optim.SGD([p], lr=1.0)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16)
    scaler.scale((p * torch.tensor([0.3, 0.4])).sum()).backward()  # true gradient [0.3, 0.4], norm 0.5
    nn.utils.clip_grad_norm_([p], max_norm=1.0)
    scaler.step(optimizer)
    return p.detach().norm().item()


def _check_moved(moved: Any) -> tuple:
    value = number_of(moved)
    if value is None:
        return incorrect(f"expected a number, got {type(moved).__name__} {moved!r}")
    right = _distance_moved()
    if abs(value - right) <= 1e-3 * right:
        return correct(
            f"{right:.3g} = 1 / 2¹⁶: the scaled norm 0.5 × 2¹⁶ is clipped to 1, then divided by 2¹⁶; the step"
            " is 32768 times shorter than the 0.5 it should be, and nothing fails."
        )
    if abs(value - 0.5) < 1e-6:
        return incorrect(
            "0.5 is the step with the gradient unscaled before clipping; here the clip came first"
        )
    if abs(value - 1.0) < 1e-6:
        return incorrect(
            "the clip does cut the norm to 1, but of the scaled gradient; what does step() do next?"
        )
    return incorrect(
        f"you gave {value:g}; follow the norm: true 0.5, scaled by 2¹⁶, clipped at 1, then unscaled"
    )


def _gan_orders() -> dict:
    """Four orders of a GAN step's backward and step calls, each a function of a fresh GAN's parts."""

    def a(losses, opt_g, opt_d):
        losses["d"].backward()
        opt_d.step()
        losses["g"].backward()
        opt_g.step()

    def b(losses, opt_g, opt_d):
        losses["d"].backward()
        losses["g"].backward()
        opt_d.step()
        opt_g.step()

    def c(losses, opt_g, opt_d):
        losses["g"].backward()
        opt_g.step()
        losses["d"].backward()
        opt_d.step()

    def d(losses, opt_g, opt_d):
        losses["g"].backward(retain_graph=True)
        opt_g.step()
        losses["d_through_g"].backward()

    return {"a": a, "b": b, "c": c, "d": d}


def _raising_orders() -> dict[str, bool]:
    """Whether each order's backward raises for a tensor changed in place, run on a fresh GAN."""
    import torch
    from torch import nn

    raising = {}
    for letter, order in _gan_orders().items():
        torch.manual_seed(0)
        g = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 15))
        d = nn.Sequential(nn.Linear(15, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
        opt_g, opt_d = torch.optim.Adam(g.parameters(), lr=1e-3), torch.optim.Adam(d.parameters(), lr=1e-3)
        real, fake = torch.sin(torch.linspace(-1, 1, 15)).expand(8, 15), g(torch.randn(8, 5))
        losses = {
            "d": -(torch.log(d(real)) + torch.log(1 - d(fake.detach()))).mean(),
            "g": torch.log(1 - d(fake)).mean(),
            "d_through_g": -(torch.log(d(real)) + torch.log(1 - d(fake))).mean(),
        }
        try:
            order(losses, opt_g, opt_d)
        except RuntimeError as error:
            raising[letter] = "inplace operation" in str(error)
        else:
            raising[letter] = False
    return raising


_check_raising_orders = which_ones(_raising_orders, "raise for a tensor changed in place")


def _accumulation_error(accumulate: Any, sizes: tuple[int, ...]) -> float | None:
    """The largest gap between accumulate's .grad and the full batch's (None: some .grad is None)."""
    from helpers import TinyNet, make_tiny_problem

    x, y = make_tiny_problem(seed=1, n=sum(sizes))
    full = TinyNet(seed=0)
    ((full(x) - y) ** 2).mean().backward()
    model = TinyNet(seed=0)
    accumulate(model, list(zip(x.split(list(sizes)), y.split(list(sizes)))))
    gaps = []
    for mine, true in zip(model.parameters(), full.parameters()):
        if mine.grad is None:
            return None
        gaps.append(((mine.grad - true.grad).abs().max() / true.grad.abs().max()).item())
    return max(gaps)


def _check_accumulate(accumulate: Any) -> tuple:
    if not callable(accumulate):
        return incorrect(f"expected a function accumulate(model, micro_batches), got {accumulate!r}")
    for sizes in ((6, 6, 4), (3, 9, 1, 2)):
        gap = _accumulation_error(accumulate, sizes)
        if gap is None:
            return incorrect(f"with micro-batches of {list(sizes)} some parameters have no .grad afterwards")
        if gap > 1e-5:
            return incorrect(
                f"with micro-batches of {list(sizes)} samples, .grad is off the full batch's by {gap:.0%} of"
                " its largest entry"
            )
    return correct(
        "the accumulated .grad is the full batch's, whatever the sizes: each micro-batch's mean weighted by"
        " its share of the samples (or summed, then divided by the total)."
    )


ACTIVITIES = (
    Activity(
        id="17.1",
        task=(
            "Predict which of five logged values (loss, accuracy, grad_norm, penalty, lr) keep a "
            "step's graph."
        ),
        names=("keeps_graph",),
        check=_check_keeps_graph,
        hints=(
            "A value keeps a graph when it is a tensor with a grad_fn: computed from tensors that "
            "require grad.",
            "argmax has no gradient; .grad does not require grad; a Python float holds nothing.",
        ),
        solution='keeps_graph = {"loss", "penalty"}',
    ),
    Activity(
        id="17.2",
        task="Predict how far one SGD step moves a parameter when its scaled gradient is clipped first.",
        names=("moved",),
        check=_check_moved,
        hints=(
            "Follow the norm: what is it after scale(loss).backward(), after the clip, after step?",
            "scaler.step unscales (divides by 2¹⁶) before the SGD update, since unscale_ was not called.",
        ),
        solution="moved = 1.52587890625e-05  # 1 / 2**16",
    ),
    Activity(
        id="17.3",
        task="Predict which of four orders of a GAN step's backward and step calls raise (in-place write).",
        names=("raises",),
        check=_check_raising_orders,
        hints=(
            "A step writes its network's parameters in place; a backward raises only when its record saved"
            " some of them before that step.",
            "g_loss's record goes through D and G; d_loss's (on fake.detach()) through D alone;"
            " d_loss_through_g's through both.",
        ),
        solution='raises = {"a", "d"}',
    ),
    Activity(
        id="17.4",
        task=(
            "Write accumulate(model, micro_batches): backward per micro-batch, leaving in .grad the gradient"
            " of the MSE over all the samples, for micro-batches of unequal sizes."
        ),
        names=("accumulate",),
        check=_check_accumulate,
        hints=(
            "Compare with the full batch on the sizes [6, 6, 4]: dividing each mean loss by the number of"
            " micro-batches weighs every micro-batch the same, however many samples it holds.",
            "The full batch's mean is the sum of every sample's loss over the number of samples N: give each"
            " micro-batch the weight len(xb) / N.",
        ),
        solution=(
            "def accumulate(model, micro_batches):\n"
            "    total = sum(len(xb) for xb, _ in micro_batches)\n"
            "    for xb, yb in micro_batches:\n"
            "        loss = ((model(xb) - yb) ** 2).mean()\n"
            "        (loss * len(xb) / total).backward()"
        ),
    ),
)
