"""The gradient report's tuned path: every gradient's figures (L2 norm, NaN and Inf counts) measured
with one pass over each gradient and one host read for all of them.

This is the fast path, kept apart from the readable one. What the figures are is defined in
helpers.gradients.gradient_figures: the float64 norm of the values and the counts of
helpers._stats.count_nonfinite, one tensor at a time (tests/test_tuned_norms.py holds the two equal).
That definition costs a float64 copy and two host reads per gradient: on a GPU a stall per
parameter, the post's per-parameter reads. This path instead measures each large gradient with
get_total_norm's own float32 kernel (so a report costs about what the total norm costs), stacks small
ones of one shape into a cache-sized buffer, reads every norm back at once, and takes a second look
only where float32 squares cannot be trusted: a norm that reads 0 (a byte test proves an all-zero
gradient zero), one below TINY_NORM (underflow: measured in float64, which costs the same at every
magnitude where float32 arithmetic on subnormals is up to 40 times slower), or inf (rescaled by
2**-100 to tell an overflow from an Inf; NaN and Inf counted only there).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from operator import attrgetter

import torch

from helpers._stats import count_nonfinite, exact_norm, on_device

__all__ = [
    "TINY_NORM",
    "exact_figures",
    "figures",
    "norms",
    "second_look",
    "to_look_at",
]


def _accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 for double precision, else float32 (never half: its squares overflow at 256)."""
    if dtype in (torch.float64, torch.complex128):
        return torch.float64
    return torch.float32


# The smallest float32 norm that norms() gives exactly: below it the sum of squares falls under
# float32's normal range (1.2e-38) and loses digits, down to 0 for elements below 3.7e-23.
TINY_NORM = 1e-18

# torch._foreach_norm is private API: on a GPU it measures a whole list of tensors with one fused
# kernel, where a loop launches one kernel per tensor (2,000 launches for 2,000 biases). No public
# function reaches per-tensor norms of a list that way. On the CPU it only loops in C++, as the
# public path below does in Python at the same speed, so the CPU, and any torch without it, takes
# the public path. tests/test_tuned_norms.py checks both paths agree; the nox sessions run it per torch.
_FOREACH_NORM = getattr(torch, "_foreach_norm", None)
_CHUNK = 1 << 17  # elements stacked at a time with one thread: 512 KiB of float32 stays in cache
# An element-wise kernel over more than torch's grain size (32,768 elements) is split across the CPU
# threads. With the default threads on a loaded machine each split waits for a thread the OS has not
# scheduled yet: a copy, a multiply or a byte test of a 256x256 gradient took 60 to 250 times its
# float32 norm (2 threads, load average 14), where a norm was not slowed. With several threads the
# element-wise passes of this path therefore run on the CPU in pieces of _PIECE elements, each one
# thread's work, and small tensors are stacked _PIECE elements at a time.
_PIECE = 1 << 14
_SMALL = 4096  # tensors up to this size are stacked: one kernel for many, not one each


def use_foreach(device: torch.device) -> bool:
    """Whether norms() measures tensors on `device` with torch._foreach_norm (see above)."""
    return _FOREACH_NORM is not None and device.type != "cpu"


def _foreach_norms(values: list[torch.Tensor], acc: torch.dtype) -> tuple[list[int], torch.Tensor]:
    """The L2 norm of each tensor (one dtype, one device), in order: one fused kernel."""
    return list(range(len(values))), torch.stack(_FOREACH_NORM(values, 2, dtype=acc))  # type: ignore[misc]


def _looped_norms(values: list[torch.Tensor], acc: torch.dtype) -> tuple[list[int], torch.Tensor]:
    """The L2 norm of each tensor (one dtype, one device) with public ops, in the order of the
    returned indices: a large tensor alone, as get_total_norm measures it; small ones of one
    shape (a model's biases) stacked into a cache-sized scratch buffer and measured many per
    kernel, summed in float64 there (cheap at that size), so their norms are exact."""
    alone: list[int] = []
    shapes: dict[torch.Size, list[int]] = defaultdict(list)
    for i, shape in enumerate(map(attrgetter("shape"), values)):
        if 0 < shape.numel() <= _SMALL:
            shapes[shape].append(i)
        else:
            alone.append(i)
    order = list(alone)
    parts = [torch.stack([torch.linalg.vector_norm(values[i], dtype=acc) for i in alone])] if alone else []
    chunk = _CHUNK if torch.get_num_threads() == 1 or values[0].device.type != "cpu" else _PIECE
    buffer = torch.empty(chunk if shapes else 0, dtype=values[0].dtype, device=values[0].device)
    for shape, idx in shapes.items():
        numel = shape.numel()
        per_batch = chunk // numel
        for start in range(0, len(idx), per_batch):
            batch = idx[start : start + per_batch]
            scratch = buffer[: len(batch) * numel].view(len(batch), *shape)
            torch.stack([values[i] for i in batch], out=scratch)
            order += batch
            parts.append(
                torch.linalg.vector_norm(scratch.view(len(batch), numel), dim=1, dtype=torch.float64)
            )
    return order, torch.cat(parts)


@torch.no_grad()
def norms(tensors: Sequence[torch.Tensor]) -> list[float]:
    """The L2 norm of every tensor as a Python float: one pass over each, one host read.

    A large tensor is measured with get_total_norm's kernel, so the figure costs what the total
    norm costs; in float32 for float32 and half tensors, where a norm that is not finite or is
    below TINY_NORM may not be exact (`to_look_at` finds those). Small tensors, and complex,
    integer and sparse ones, are measured exactly; an empty tensor's norm is 0.
    """
    if not tensors:
        return []
    first = tensors[0].device
    keys = list(map(attrgetter("device", "dtype", "layout"), tensors))
    groups: dict[tuple[torch.device, torch.dtype, torch.layout], list[int]] = defaultdict(list)
    if keys.count(keys[0]) == len(keys):  # the common case: one device, one dtype
        groups[keys[0]] = list(range(len(keys)))
    else:
        for i, key in enumerate(keys):
            groups[key].append(i)
    order, parts, others = [], [], []
    for (device, dtype, layout), idx in groups.items():
        if not dtype.is_floating_point or layout != torch.strided:
            others += idx  # complex, integer or sparse: rare, one tensor at a time
            continue
        fused = use_foreach(device)
        if fused:
            others += [i for i in idx if not tensors[i].numel()]  # empty: 0, without a kernel
            idx = [i for i in idx if tensors[i].numel()]
            if not idx:
                continue
        measure = _foreach_norms if fused else _looped_norms
        positions, group = measure([tensors[i] for i in idx], _accumulation_dtype(dtype))
        order += [idx[j] for j in positions]
        parts.append(on_device(group.double(), first))
    if others:
        order += others
        parts.append(torch.stack([on_device(exact_norm(tensors[i]), first) for i in others]))
    numbers = torch.cat(parts).tolist()  # the one host read
    result = [0.0] * len(tensors)
    for i, n in zip(order, numbers):
        result[i] = n
    return result


_SUMMED_IN_FLOAT32 = (torch.float32, torch.float16, torch.bfloat16)


def _summed_in_float32(tensor: torch.Tensor) -> bool:
    """Whether norms() sums this tensor's squares in float32 (see _looped_norms, _foreach_norms)."""
    if tensor.numel() <= _SMALL and not use_foreach(tensor.device):
        return False  # a small tensor measured by _looped_norms (a bias): summed in float64
    return tensor.dtype in _SUMMED_IN_FLOAT32 and tensor.layout == torch.strided


def to_look_at(tensors: Sequence[torch.Tensor], measured: Sequence[float]) -> list[int]:
    """The indices of the norms that need a second, exact look (exact_figures): every one that is
    not finite (its NaN and Inf are counted), and every float32 sum that is 0 or under TINY_NORM
    (a gradient too small for float32 squares is told from an all-zero one)."""
    return [
        i
        for i, n in enumerate(measured)
        if not TINY_NORM <= n < math.inf and (not math.isfinite(n) or _summed_in_float32(tensors[i]))
    ]


def _count_rows(tensors: Sequence[torch.Tensor], first: torch.device) -> torch.Tensor:
    """[NaN count, Inf count, exact L2 norm] of each tensor: float64 rows on `first`, not read."""
    return torch.stack(
        [
            torch.cat(
                [on_device(count_nonfinite(t), first).double(), on_device(exact_norm(t), first).reshape(1)]
            )
            for t in tensors
        ]
    )


@torch.no_grad()
def exact_figures(tensors: Sequence[torch.Tensor]) -> list[tuple[int, int, float]]:
    """(NaN count, Inf count, exact L2 norm) of every tensor, with one host read: the look at
    tensors that hold NaN or Inf (second_look)."""
    if not tensors:
        return []
    return _triples(_read([], tensors, tensors[0].device))


# A float32 norm that overflowed (a finite element above 1.8e19 squares to inf) is measured again on
# the tensor times 2**-100: its finite elements then square without overflow, and those that fall
# below float32's range weigh nothing beside a norm above 1.8e19. A power of 2 scales exactly, so
# the rescaled norm, divided back in float64, is the norm at float32 precision. One multiply into
# a scratch tensor and one float32 norm: cheaper than a float64 copy of huge values.
_DOWN = 2.0**-100


def _scratch(
    scratch: dict[tuple[torch.Size, torch.dtype, torch.device], torch.Tensor],
    like: torch.Tensor,
    dtype: torch.dtype,
) -> torch.Tensor:
    """A tensor of like's shape and device in `dtype`, one per key and reused (a model has few
    shapes): no memory is allocated per measured tensor."""
    key = (like.shape, dtype, like.device)
    out = scratch.get(key)
    if out is None:
        out = scratch[key] = torch.empty(like.shape, dtype=dtype, device=like.device)
    return out


def _pieces(tensor: torch.Tensor) -> list[torch.Tensor]:
    """A contiguous tensor's elements as flat views of at most _PIECE elements each on a CPU with
    several threads (see _PIECE), else as one flat view."""
    flat = tensor.view(-1)
    if flat.numel() <= _PIECE or flat.device.type != "cpu" or torch.get_num_threads() == 1:
        return [flat]
    return list(flat.split(_PIECE))


def _piecewise(fill: Callable[[torch.Tensor, torch.Tensor], object], out: torch.Tensor, src: torch.Tensor):
    """out (contiguous, src's shape) filled from src by fill(out_piece, src_piece), piece by piece."""
    for to, of in zip(_pieces(out), _pieces(src.contiguous())):
        fill(to, of)
    return out


def _overflowed_norms(tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """The float32 L2 norm of each tensor * 2**-100, as 0-dim tensors on their devices. Only tensors
    norms() summed in float32 come here: strided float32, half or bfloat16."""
    scratch: dict[tuple[torch.Size, torch.dtype, torch.device], torch.Tensor] = {}

    def scaled(to: torch.Tensor, of: torch.Tensor) -> None:
        torch.mul(of, _DOWN, out=to)

    products = (_piecewise(scaled, _scratch(scratch, t, torch.float32), t) for t in tensors)
    return [torch.linalg.vector_norm(p) for p in products]


def _exact_norms(tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """The L2 norm of each tensor summed in float64 (exact_norm's figure), as 0-dim tensors on their
    devices: each copied into a float64 scratch tensor, reused. Only strided real tensors come here."""
    scratch: dict[tuple[torch.Size, torch.dtype, torch.device], torch.Tensor] = {}
    copies = (_piecewise(torch.Tensor.copy_, _scratch(scratch, t, torch.float64), t) for t in tensors)
    return [torch.linalg.vector_norm(c) for c in copies]


_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}  # an integer of each size


def _zero_bits(tensor: torch.Tensor) -> torch.Tensor:
    """Whether any bit of a strided tensor is set, as a 0-dim bool tensor on its device: False
    proves every element +0.0. An integer pass over the bits, which costs no more on subnormal
    floats, where float arithmetic on the CPU is up to 40 times slower. True for -0.0 too, so
    the caller then measures the norm. A tensor whose bytes are not contiguous is copied first."""
    bits = tensor.contiguous().view(_BITS.get(tensor.element_size(), torch.uint8))
    found = [piece.any() for piece in _pieces(bits)]
    return found[0] if len(found) == 1 else torch.stack(found).any()


def _read(
    looks: Sequence[Sequence[torch.Tensor]], rows: Sequence[torch.Tensor], device: torch.device
) -> list[float]:
    """Lists of 0-dim tensors (one dtype each), then NaN/Inf/norm rows of tensors (_count_rows),
    flattened, as Python floats: one host read, none when there is nothing to read."""
    parts = [torch.stack([on_device(s, device) for s in look]).double() for look in looks if look]
    if rows:
        parts.append(_count_rows(rows, device).reshape(-1))
    return torch.cat(parts).tolist() if parts else []


def _triples(numbers: Sequence[float]) -> list[tuple[int, int, float]]:
    return [(int(numbers[k]), int(numbers[k + 1]), numbers[k + 2]) for k in range(0, len(numbers), 3)]


@torch.no_grad()
def second_look(tensors: Sequence[torch.Tensor], measured: Sequence[float]) -> list[tuple[int, int, float]]:
    """(NaN count, Inf count, norm) of the tensors to_look_at picked, given their first norms.

    What each first norm leaves open, and how it is settled:
    - a float32 sum that read 0: every element is below 2.6e-23, or zero. A byte test proves a
      zero gradient (a dead layer's) zero; the others are measured exactly in float64.
    - a float32 sum below TINY_NORM: measured exactly in float64 (exact_norm). A float64 copy
      costs about the same at every magnitude, where a float32 pass costs 10 to 40 times more
      over subnormal elements (the earliest layers of a vanishing stack).
    - a float32 sum that read inf: measured again on the tensor times 2**-100; a finite result
      proves every element finite (an overflow), an infinite one is counted (an Inf).
    - NaN, or Inf in a tensor measured exactly: NaN and Inf counted (exact_figures).
    A float32 sum that is finite proves the tensor holds no NaN or Inf. One host read; a second
    for zero-reading tensors the byte test did not prove zero and for an Inf in a large tensor.
    """
    first = tensors[0].device if tensors else torch.device("cpu")
    # to_look_at picks a finite norm (0 or tiny) only where it was summed in float32; an infinite one
    # is an overflow to measure again there, else an Inf to count
    zero = [i for i, n in enumerate(measured) if n == 0.0]
    tiny = [i for i, n in enumerate(measured) if 0.0 < n < math.inf]
    over = [i for i, n in enumerate(measured) if n == math.inf and _summed_in_float32(tensors[i])]
    counted = sorted({*range(len(tensors))} - {*zero, *tiny, *over})
    looks = [
        [_zero_bits(tensors[i]) for i in zero],
        _exact_norms([tensors[i] for i in tiny]),
        _overflowed_norms([tensors[i] for i in over]),
    ]
    numbers = _read(looks, [tensors[i] for i in counted], first)
    result: list[tuple[int, int, float]] = [(0, 0, 0.0)] * len(tensors)
    unproven = [i for i, nonzero in zip(zero, numbers) if nonzero]
    numbers = numbers[len(zero) :]
    for i, norm in zip(tiny, numbers):
        result[i] = (0, 0, norm)
    numbers = numbers[len(tiny) :]
    for i, norm in zip(over, numbers):
        result[i] = (0, 0, norm / _DOWN)
    for i, figures in zip(counted, _triples(numbers[len(over) :])):
        result[i] = figures
    infinite = [i for i in over if result[i][2] == math.inf]  # an Inf, not an overflow
    again = _read([_exact_norms([tensors[i] for i in unproven])], [tensors[i] for i in infinite], first)
    for i, norm in zip(unproven, again):
        result[i] = (0, 0, norm)
    for i, figures in zip(infinite, _triples(again[len(unproven) :])):
        result[i] = figures
    return result


@torch.no_grad()
def figures(tensors: Sequence[torch.Tensor]) -> tuple[list[float], list[int], list[int]]:
    """Three columns, an entry per tensor: L2 norm, NaN count, Inf count; the figures of
    helpers.gradients.gradient_figures for every tensor at once.

    One host read measures every norm; a second look (second_look) is taken only where a norm
    is not finite, to count NaN and Inf, or where a float32 sum of squares underflowed or
    overflowed (to_look_at): it proves a zero gradient zero, and measures the others exactly.
    """
    norm = norms(tensors)  # the one host read
    nan, inf = [0] * len(tensors), [0] * len(tensors)
    doubtful = to_look_at(tensors, norm)
    looked = second_look([tensors[i] for i in doubtful], [norm[i] for i in doubtful])
    for i, (a, b, n) in zip(doubtful, looked):
        nan[i], inf[i], norm[i] = a, b, n
    return norm, nan, inf
