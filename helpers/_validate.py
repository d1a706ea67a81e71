"""Input checks with errors that say what was expected."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch import nn

__all__ = ["require_module", "require_parameters", "require_tensor"]


def _kind(value: Any) -> str:
    return type(value).__name__


def require_module(model: Any, *, allow_empty: bool = False) -> nn.Module:
    """Return model if it is an nn.Module with parameters, else raise a clear error."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"expected a torch.nn.Module, got {_kind(model)}")
    if not allow_empty and next(model.parameters(), None) is None:
        raise ValueError(f"expected a model with parameters, but {_kind(model)} has none")
    return model


def require_tensor(name: str, tensor: Any) -> torch.Tensor:
    """Return tensor if it is a torch.Tensor, else raise a clear error."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"expected {name!r} to be a torch.Tensor, got {_kind(tensor)}")
    return tensor


def require_parameters(model_or_parameters: Any) -> list[torch.Tensor]:
    """The tensors of a module, a single tensor, or an iterable of tensors."""
    if isinstance(model_or_parameters, nn.Module):
        return list(model_or_parameters.parameters())
    if isinstance(model_or_parameters, torch.Tensor):
        return [model_or_parameters]
    if isinstance(model_or_parameters, Iterable) and not isinstance(model_or_parameters, (str, bytes)):
        params = list(model_or_parameters)
        for p in params:
            require_tensor("parameter", p)
        return params
    raise TypeError(
        f"expected an nn.Module, a tensor or an iterable of tensors, got {_kind(model_or_parameters)}"
    )
