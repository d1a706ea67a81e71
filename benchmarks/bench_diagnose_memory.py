"""diagnose's extra peak memory in the middle of training, as a ratio to the training state.

ResNet-18 (torchvision's where it imports, else the same network from tests/real_models.py),
10 classes, SGD with momentum 0.9, batch 8 at 64x64, trained 6 steps; then either
`diagnose(step, model, optimizer, steps=2)` or the same two plain steps. Each side runs in a
fresh subprocess (nothing reused from an earlier run), several times, and the medians are
compared: extra peak = peak(diagnose) - peak(two plain steps), both measured from the resident
size after the 6 training steps. The training state is what diagnose must give back:
parameters, their gradients, the momentum buffers and the model's buffers. Target: <= 1.0x.

A second method, the peak above a plain step, in one process: after the same training, one
plain step's peak and then diagnose's peak, each above the resident size just before it;
extra = peak(diagnose) - peak(plain step), its median over the runs.

On the CPU the peak is the process's peak resident memory (Linux /proc/self/status VmHWM, reset
through /proc/self/clear_refs; allocations above 64 KiB are mmap'd so freed blocks leave RSS).
On a GPU it is CUDA's max_memory_allocated (device memory: diagnose's copies live in host
memory, so this should be ~0) and the host's peak RSS beside it.

Both sides first run diagnose once on a small ResNet (width 8, 0.7 MiB) and free it: RSS counts the
code pages of torch's kernels the first time they run (file pages, the same for any model), and
diagnose runs kernels a plain step does not (aminmax, norms, stack); without the warm-up that
one-time cost of a few MiB would be counted as diagnose's copy.

    .venv/bin/python benchmarks/bench_diagnose_memory.py [--runs 3] [--threads N]

Torch's default thread count unless --threads says otherwise.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MiB = 2**20


def _status_bytes(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    match = re.search(rf"{field}:\s+(\d+) kB", text)
    return int(match.group(1)) * 1024 if match else 0


def warm_up(x, y) -> None:
    """diagnose once on a small ResNet (width 8), then nothing of it kept: torch's kernels are loaded."""
    import torch
    from real_models import resnet_tiny, training_step
    from torch import nn

    from helpers import diagnose

    model = resnet_tiny(width=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    step = training_step(optimizer, lambda: nn.functional.cross_entropy(model(x[:1]), y[:1]))
    step()
    diagnose(step, model, optimizer, steps=2)


def _trained(threads: int):
    """(model, optimizer, step, training state in bytes, device) after 6 training steps, with
    `threads` torch threads (0: torch's default, as users run)."""
    import torch
    from real_models import resnet18, training_step
    from torch import nn

    if threads:
        torch.set_num_threads(threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = resnet18(num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 3, 64, 64, generator=g).to(device)
    y = torch.randint(0, 10, (8,), generator=g).to(device)

    step = training_step(optimizer, lambda: nn.functional.cross_entropy(model(x), y))
    warm_up(x, y)  # see the module's docstring
    for _ in range(6):
        step()
    tensors = [*model.parameters(), *(p.grad for p in model.parameters() if p.grad is not None)]
    tensors += [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    tensors += list(model.buffers())
    state = sum(t.numel() * t.element_size() for t in tensors)
    del tensors  # holding the gradients here would keep them alive through zero_grad
    return model, optimizer, step, state, device


def _peak(run: Any, device: Any) -> tuple[int, float]:
    """(peak RSS above the resident size now, CUDA peak above the allocated memory now) of run()."""
    import torch

    gc.collect()
    ctypes.CDLL(None).malloc_trim(0)
    cuda, start = 0.0, 0
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start = torch.cuda.memory_allocated()
    Path("/proc/self/clear_refs").write_text("5")  # the peak restarts from the resident size now
    rss_start = _status_bytes("VmRSS")
    run()
    host = _status_bytes("VmHWM") - rss_start
    if device.type == "cuda":
        torch.cuda.synchronize()
        cuda = torch.cuda.max_memory_allocated() - start
    return host, cuda


def child(kind: str, threads: int) -> dict[str, float]:
    """One measurement in this (fresh) process: train 6 steps, then `kind`: "plain" (two plain
    steps), "diagnose" (diagnose(steps=2)), or "inprocess" (one plain step, then diagnose, both
    measured in this process from the resident size before each: the peak above a plain step)."""
    ctypes.CDLL(None).mallopt(-3, 64 * 1024)  # M_MMAP_THRESHOLD: freed big blocks leave RSS
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from helpers import diagnose

    model, optimizer, step, state, device = _trained(threads)

    def diagnosed() -> None:
        verdict = diagnose(step, model, optimizer, steps=2)
        assert verdict.ok, verdict

    name = type(model).__module__.split(".")[0] + " resnet18"
    import torch

    out = {"state": state, "device": device.type, "model": name, "threads": torch.get_num_threads()}
    if kind == "inprocess":
        (plain, plain_cuda), (diag, diag_cuda) = _peak(step, device), _peak(diagnosed, device)
        return out | {"host": diag - plain, "cuda": diag_cuda - plain_cuda}
    host, cuda = _peak(diagnosed if kind == "diagnose" else lambda: (step(), step()), device)
    return out | {"host": host, "cuda": cuda}


def measure(kind: str, threads: int) -> dict[str, float]:
    """child(kind, threads) in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--threads", str(threads)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per side (median)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default 0: torch's default)")
    parser.add_argument("--child", choices=["plain", "diagnose", "inprocess"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.threads)))
        return
    if not Path("/proc/self/clear_refs").exists():
        sys.exit("needs Linux /proc (VmHWM, clear_refs)")
    plain, diag, inproc = [], [], []
    for _ in range(args.runs):  # interleaved, so a change in the machine's load hits both sides
        plain.append(measure("plain", args.threads))
        diag.append(measure("diagnose", args.threads))
        inproc.append(measure("inprocess", args.threads))
    state, device, model = diag[0]["state"], diag[0]["device"], diag[0]["model"]
    print(
        f"{model} (10 classes), SGD momentum 0.9, batch 8 at 64x64, trained 6 steps; {device}, "
        f"{diag[0]['threads']} thread(s); load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"training state (parameters, gradients, momentum, buffers): {state / MiB:.1f} MiB")
    print(f"{'side':<36} {'runs (MiB)':<28} {'median':>9}")
    for field in ("host", "cuda") if device == "cuda" else ("host",):
        where = "peak RSS" if field == "host" else "CUDA max_memory_allocated"
        medians = []
        for side, runs in (("two plain steps", plain), ("diagnose(steps=2)", diag)):
            values = [r[field] / MiB for r in runs]
            medians.append(statistics.median(values))
            shown = ", ".join(f"{v:.1f}" for v in values)
            print(f"{side + ', ' + where:<36} {shown:<28} {medians[-1]:>9.1f}")
        extra = medians[1] - medians[0]
        ratio = extra * MiB / state
        print(f"extra peak ({where}): {extra:.1f} MiB = {ratio:.3f}x the training state (target <= 1.0x)")
        values = [r[field] / MiB for r in inproc]
        extra = statistics.median(values)
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(
            f"peak above one plain step in the same process ({where}): runs {shown} MiB, median "
            f"{extra:.1f} MiB = {extra * MiB / state:.3f}x the training state (target <= 1.0x)"
        )


if __name__ == "__main__":
    main()
