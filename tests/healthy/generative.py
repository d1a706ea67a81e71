"""Generative loops: VAEs (mean and summed loss), a GAN with two optimizers, a WGAN-GP."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from healthy.loop import Healthy, Loop, data, evaluate, plain


class VAE(nn.Module):
    def __init__(self, d: int = 8, z: int = 2) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, 2 * z))
        self.dec = nn.Sequential(nn.Linear(z, 16), nn.ReLU(), nn.Linear(16, d))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        mu, logvar = self.enc(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return torch.sigmoid(self.dec(z)), mu, logvar


def _vae(reduction: str, d: int = 8, n: int = 256) -> Loop:
    torch.manual_seed(0)
    model = VAE(d)
    x = (data(12, n, 2) @ data(13, 2, d)).sigmoid().round()  # binary data on a 2-d manifold

    def loss() -> torch.Tensor:
        recon, mu, logvar = model(x)
        rec = F.binary_cross_entropy(recon, x, reduction=reduction)
        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp())
        return rec + (kl.sum() if reduction == "sum" else kl.sum(1).mean() / x.shape[1])

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    def metric() -> float:
        torch.manual_seed(1)  # the same noise for every evaluation
        return evaluate(model, loss)

    return Loop(plain(optimizer, loss), model, optimizer, metric)


def vae_mean() -> Loop:
    return _vae("mean")


def vae_summed_adam() -> Loop:
    """The classic VAE loss, summed over the batch (Kingma and Welling), with Adam, on MNIST-sized
    inputs: a total gradient norm of thousands, as large as the loss is."""
    return _vae("sum", d=784, n=128)


def _gan_data() -> torch.Tensor:
    return data(14, 128, 2) * 0.1 + torch.tensor([2.0, -1.0])


def gan_two_optimizers() -> Loop:
    """A GAN held as one container, diagnose given the generator's optimizer: the critic's is in the step."""
    torch.manual_seed(0)
    model = nn.ModuleDict({"G": nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2)),
                           "D": nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))})  # fmt: skip
    real = _gan_data()
    opt_g = torch.optim.Adam(model["G"].parameters(), lr=1e-2, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(model["D"].parameters(), lr=1e-2, betas=(0.5, 0.999))

    def step() -> torch.Tensor:
        fake = model["G"](torch.randn(128, 2))
        opt_d.zero_grad()
        d_loss = F.binary_cross_entropy_with_logits(model["D"](real), torch.ones(128, 1)) + (
            F.binary_cross_entropy_with_logits(model["D"](fake.detach()), torch.zeros(128, 1))
        )
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.binary_cross_entropy_with_logits(model["D"](fake), torch.ones(128, 1))
        g_loss.backward()
        opt_g.step()
        return g_loss.detach()

    def metric() -> float:
        torch.manual_seed(1)
        with torch.no_grad():
            return float((model["G"](torch.randn(512, 2)).mean(0) - real.mean(0)).norm())

    return Loop(step, model, [opt_g, opt_d], metric, given=opt_g)


def wgan_gp() -> Loop:
    """WGAN-GP: the critic steps on its loss with a gradient penalty, then the generator steps."""
    torch.manual_seed(0)
    model = nn.ModuleDict({"G": nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2)),
                           "D": nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))})  # fmt: skip
    real = _gan_data()
    opt_g = torch.optim.Adam(model["G"].parameters(), lr=2e-2, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(model["D"].parameters(), lr=2e-2, betas=(0.5, 0.9))

    def step() -> torch.Tensor:
        fake = model["G"](torch.randn(128, 2))
        opt_d.zero_grad()
        mix = torch.rand(128, 1)
        inter = (mix * real + (1 - mix) * fake.detach()).requires_grad_(True)
        (grad,) = torch.autograd.grad(model["D"](inter).sum(), inter, create_graph=True)
        penalty = ((grad.norm(dim=1) - 1) ** 2).mean()
        d_loss = model["D"](fake.detach()).mean() - model["D"](real).mean() + 10 * penalty
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = -model["D"](fake).mean()
        g_loss.backward()
        opt_g.step()
        return d_loss.detach()

    def metric() -> float:
        torch.manual_seed(1)
        with torch.no_grad():
            return float((model["G"](torch.randn(512, 2)).mean(0) - real.mean(0)).norm())

    return Loop(step, model, [opt_g, opt_d], metric)


LOOPS = (
    Healthy("vae_mean", vae_mean),
    Healthy("vae_summed_adam", vae_summed_adam),
    Healthy("gan_two_optimizers", gan_two_optimizers),
    Healthy("wgan_gp", wgan_gp),
)
