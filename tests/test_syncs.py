"""count_host_syncs: every listed kind of device-to-host read counts once; device math counts nothing."""

import numpy as np
import pytest
import torch

from helpers import count_host_syncs
from helpers.syncs import HostSyncCounter

T = torch.tensor([0.0, 1.0, 2.0])

READS = {
    "item": lambda: T[1].item(),
    "bool": lambda: bool(T[1]),
    "float": lambda: float(T[1]),
    "int": lambda: int(T[1]),
    "tolist": lambda: T.tolist(),
    "cpu": lambda: T.cpu(),
    "numpy": lambda: T.numpy(),
    "np.asarray": lambda: np.asarray(T),
    "to('cpu')": lambda: T.to("cpu"),
    "equal": lambda: torch.equal(T, T),
    "bool-mask index": lambda: T[T > 0],
    "nonzero": lambda: T.nonzero(),
    "torch.nonzero": lambda: torch.nonzero(T),
    "if tensor": lambda: 1 if (T > 0).any() else 0,
    "f-string": lambda: f"{T[1]:.2f}",
    "str": lambda: str(T),
    "complex": lambda: complex(T[1]),
    "argwhere": lambda: T.argwhere(),
    "masked_select": lambda: torch.masked_select(T, T > 0),
    "tuple bool-mask index": lambda: T.view(1, 3)[0, T > 0],
}


@pytest.mark.parametrize("kind", list(READS))
def test_each_kind_of_host_read_counts_once(kind):
    with count_host_syncs() as syncs:
        READS[kind]()
    assert syncs.count == 1, syncs


def test_device_side_work_reads_nothing():
    with count_host_syncs() as syncs:
        y = (T * 2 + 1).exp().sum()
        z = torch.stack([y, T.amax(), torch.isfinite(T).all().double()])
        T[torch.tensor([0, 2])]  # integer indexing is not a bool mask
        T.to(torch.device("cpu"))  # a CPU tensor to its own device: no copy to a host
    assert syncs.count == 0, syncs
    assert z.shape == (3,)


def test_by_kind_tallies_and_repr():
    with count_host_syncs() as syncs:
        T.tolist()
        T[0].item()
        T[1].item()
    assert isinstance(syncs, HostSyncCounter)
    assert syncs.count == 3
    assert dict(syncs.by_kind) == {"item": 2, "tolist": 1}
    assert repr(syncs) == "HostSyncCounter(count=3, item=2, tolist=1)"


def test_reads_after_exit_are_not_counted():
    with count_host_syncs() as syncs:
        T[0].item()
    T[0].item()
    assert syncs.count == 1


def test_nested_counters_both_see_inner_reads():
    with count_host_syncs() as outer:
        T[0].item()
        with count_host_syncs() as inner:
            T.tolist()
    assert (outer.count, inner.count) == (2, 1)
