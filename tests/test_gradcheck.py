"""check_gradient: autograd against central finite differences in float64, with torch as referee."""

import pytest
import torch

from helpers import check_gradient
from helpers.gradcheck import GradientCheck


class SquareWithWrongBackward(torch.autograd.Function):
    """x**2 forward, but backward forgets the factor 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


class SquareWithRightBackward(SquareWithWrongBackward):
    """x**2 with the correct backward."""

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * grad * x


def test_correct_functions_agree_with_the_hand_derived_gradient():
    x = torch.tensor([0.5, -1.0, 2.0])
    check = check_gradient(lambda t: (t**3).sum(), x)
    assert isinstance(check, GradientCheck) and check.ok
    assert check.autograd.dtype == torch.float64
    assert torch.allclose(check.autograd, 3 * x.double() ** 2)  # d/dx x^3 = 3x^2
    assert torch.allclose(check.numerical, 3 * x.double() ** 2, atol=1e-6)
    assert check.max_abs_error == pytest.approx((check.autograd - check.numerical).abs().max().item())
    assert check.max_abs_error < 1e-6


def test_agrees_with_torch_autograd_grad_on_a_matrix_function():
    torch.manual_seed(0)
    w = torch.randn(3, 3, dtype=torch.float64)
    x = torch.randn(2, 3)

    def fn(t):
        return torch.tanh(t @ w).pow(2).mean()

    check = check_gradient(fn, x)
    x64 = x.double().requires_grad_(True)
    (reference,) = torch.autograd.grad(fn(x64), x64)
    assert check.ok and check.autograd.shape == x.shape
    assert torch.allclose(check.autograd, reference)
    assert torch.autograd.gradcheck(fn, (x64,))  # torch's own checker agrees


def test_a_wrong_custom_backward_is_detected():
    x = torch.tensor([0.5, -1.0, 2.0])
    wrong = check_gradient(lambda t: SquareWithWrongBackward.apply(t).sum(), x)
    assert not wrong.ok
    assert torch.allclose(wrong.autograd, x.double())  # what the bug computes
    assert torch.allclose(wrong.numerical, 2 * x.double(), atol=1e-6)  # what is true
    assert wrong.max_abs_error == pytest.approx(2.0, rel=1e-6)
    assert repr(wrong).startswith("GradientCheck(DISAGREE: max_abs_error=2.000e+00)")
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(SquareWithWrongBackward.apply, (x.double().requires_grad_(True),))
    right = check_gradient(lambda t: SquareWithRightBackward.apply(t).sum(), x)
    assert right.ok and repr(right).startswith("GradientCheck(agree: ")


def test_a_constant_part_has_zero_gradient():
    check = check_gradient(lambda t: t[0] * 2 + 0 * t[1].detach(), torch.tensor([1.0, 5.0]))
    assert check.ok and check.autograd.tolist() == [2.0, 0.0]


def test_x_is_left_alone():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    check_gradient(lambda t: (t * t).sum(), x)
    assert x.grad is None and x.tolist() == [1.0, 2.0] and x.dtype == torch.float32


def test_bad_input_is_a_clear_error():
    x = torch.ones(3)
    with pytest.raises(TypeError, match=r"expected 'x' to be a torch\.Tensor, got list"):
        check_gradient(lambda t: t.sum(), [1.0])
    with pytest.raises(TypeError, match="expected fn to be a callable"):
        check_gradient("sum", x)
    with pytest.raises(ValueError, match="expected eps > 0, got 0"):
        check_gradient(lambda t: t.sum(), x, eps=0)
    with pytest.raises(
        ValueError, match=r"expected fn to return a scalar tensor \(one element\), got \(3,\)"
    ):
        check_gradient(lambda t: t * 2, x)
    with pytest.raises(ValueError, match="got float"):
        check_gradient(lambda t: 1.0, x)
    with pytest.raises(ValueError, match="does not depend on x through autograd"):
        check_gradient(lambda t: t.detach().sum(), x)
