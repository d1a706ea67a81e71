"""The training loop: zero_grad, GAN and actor-critic update order, schedulers stepped at the wrong rate,
and a loss that is not a tensor."""

from __future__ import annotations

import torch
from torch import nn

from field_corpus.case import Case, Setup, mlp, regression
from helpers import Stage


def no_zero_grad() -> Setup:
    # IDEA-Research/DN-DETR#19 and LoreGoetschalckx/GANalyze#7: optimizer.zero_grad() is never called.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step() -> torch.Tensor:
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


def _gan(seed: int = 0) -> tuple[nn.Module, nn.Module]:
    torch.manual_seed(seed)
    g = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 15))
    d = nn.Sequential(nn.Linear(15, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    return g, d


def gan_step_before_backward() -> Setup:
    # pytorch/pytorch#39141: D_loss.backward(retain_graph=True); opt_D.step(); G_loss.backward():
    # G_loss goes through D, whose weights opt_D.step() just changed in place.
    g, d = _gan()
    opt_d = torch.optim.Adam(d.parameters(), lr=1e-4)
    opt_g = torch.optim.Adam(g.parameters(), lr=1e-4)
    real = torch.sin(torch.linspace(-1, 1, 15)).expand(8, 15)
    ideas = torch.randn(8, 5)

    def step() -> torch.Tensor:
        paintings = g(ideas)
        prob_real, prob_fake = d(real), d(paintings)
        d_loss = -torch.mean(torch.log(prob_real) + torch.log(1.0 - prob_fake))
        g_loss = torch.mean(torch.log(1.0 - prob_fake))
        opt_d.zero_grad()
        d_loss.backward(retain_graph=True)
        opt_d.step()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        return g_loss

    return Setup(step, nn.ModuleDict({"G": g, "D": d}), opt_g)


def vae_step_before_discriminator() -> Setup:
    # 1Konny/FactorVAE#15 and YannDubs/disentangling-vae#62: optim_VAE.step() runs, then a loss
    # built from D(z) before that step is backpropagated.
    torch.manual_seed(0)
    vae = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
    disc = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 2))
    optim_vae = torch.optim.Adam(vae.parameters(), lr=1e-4)
    optim_d = torch.optim.Adam(disc.parameters(), lr=1e-4)
    x = torch.randn(8, 6)
    zeros, ones = torch.zeros(8, dtype=torch.long), torch.ones(8, dtype=torch.long)

    def step() -> torch.Tensor:
        z = vae(x)
        d_z = disc(z)
        vae_loss = z.pow(2).mean() + (d_z[:, :1] - d_z[:, 1:]).mean()
        optim_vae.zero_grad()
        vae_loss.backward(retain_graph=True)
        optim_vae.step()
        d_z_perm = disc(z[torch.randperm(8)].detach())
        ce = nn.functional.cross_entropy
        d_tc_loss = 0.5 * (ce(d_z, zeros) + ce(d_z_perm, ones))
        optim_d.zero_grad()
        d_tc_loss.backward()
        optim_d.step()
        return d_tc_loss

    return Setup(step, nn.ModuleDict({"vae": vae, "D": disc}), optim_d)


def cyclegan_discriminator_updated() -> Setup:
    # cy-xu/simple_CycleGAN#3 (pointing to pytorch/pytorch#39141): the discriminator's parameters
    # are updated in place but still needed by the generator's backward.
    g, d = _gan(1)
    opt_d = torch.optim.SGD(d.parameters(), lr=0.1)
    opt_g = torch.optim.SGD(g.parameters(), lr=0.1)
    real, noise = torch.randn(4, 15), torch.randn(4, 5)

    def step() -> torch.Tensor:
        fake = g(noise)
        loss_g = (1 - d(fake)).pow(2).mean()
        loss_d = (1 - d(real)).pow(2).mean() + d(fake.detach()).pow(2).mean()
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        return loss_g

    return Setup(step, nn.ModuleDict({"G": g, "D": d}), opt_g)


def scheduler_per_step(kind: str) -> Setup:
    # leftthomas/SRGAN#94: StepLR(step_size=epochs // 2, gamma=0.1) stepped at every training step;
    # ivadomed/ivadomed#55: the scheduler stepped in the batch loop instead of the epoch loop.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if kind == "step":
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100 // 2, gamma=0.1)
    else:
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)

    def step() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        scheduler.step()  # the fix: once per epoch, after the batch loop
        return loss

    return Setup(step, model, optimizer)


def maddpg_critic_first() -> Setup:
    # starry-sky6688/MADDPG#27: the critic is updated before the actor (the paper's order); the
    # actor's loss goes through the critic, whose weights critic_optim.step() just changed in place.
    torch.manual_seed(0)
    actor = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2), nn.Tanh())
    critic = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    actor_optim = torch.optim.Adam(actor.parameters(), lr=1e-4)
    critic_optim = torch.optim.Adam(critic.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    o, u_taken, r = (torch.randn(8, k, generator=g) for k in (6, 2, 1))

    def step() -> torch.Tensor:
        actor_loss = -critic(torch.cat([o, actor(o)], 1)).mean()
        critic_loss = (r - critic(torch.cat([o, u_taken], 1))).pow(2).mean()
        critic_optim.zero_grad()
        critic_loss.backward()
        critic_optim.step()
        actor_optim.zero_grad()
        actor_loss.backward()  # the fix: this backward (and actor_optim.step()) before critic_optim.step()
        actor_optim.step()
        return actor_loss

    return Setup(step, nn.ModuleDict({"actor": actor, "critic": critic}), actor_optim)


def dreamer_value_step_first() -> Setup:
    # cross32768/Dreamer_PyTorch#2: value_optimizer.step() runs, then action_loss (the lambda
    # targets, computed by the value model) is backpropagated: a [400, 1] weight was written in place.
    torch.manual_seed(0)
    value_model = nn.Sequential(nn.Linear(6, 400), nn.ELU(), nn.Linear(400, 1))
    action_model = nn.Sequential(nn.Linear(6, 16), nn.ELU(), nn.Linear(16, 6), nn.Tanh())
    value_optimizer = torch.optim.Adam(value_model.parameters(), lr=8e-5)
    action_optimizer = torch.optim.Adam(action_model.parameters(), lr=8e-5)
    state = torch.randn(15, 6, generator=torch.Generator().manual_seed(0))

    def step() -> torch.Tensor:
        imagined = state + action_model(state)  # one imagined transition driven by the action model
        values = value_model(imagined)
        lambda_target_values = 0.99 * values
        value_loss = 0.5 * (values - lambda_target_values.detach()).pow(2).mean()
        value_optimizer.zero_grad()
        value_loss.backward(retain_graph=True)
        nn.utils.clip_grad_norm_(value_model.parameters(), 100)
        value_optimizer.step()
        action_loss = -1 * lambda_target_values.mean()
        action_optimizer.zero_grad()
        action_loss.backward()  # the fix: before value_optimizer.step()
        nn.utils.clip_grad_norm_(action_model.parameters(), 100)
        action_optimizer.step()
        return action_loss

    model = nn.ModuleDict({"value_model": value_model, "action_model": action_model})
    return Setup(step, model, action_optimizer)


def zero_grad_between_backward_and_step() -> Setup:
    # Tony-Y/pytorch_warmup#12: loss.backward(); optimizer.zero_grad(); optimizer.step(), then the
    # warm-up and the LR schedule stepped every batch (LinearLR stands in for the warm-up's dampening).
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=1000)
    warmup_scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.5, total_iters=100)

    def step() -> torch.Tensor:
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.zero_grad()  # the fix: before loss.backward()
        optimizer.step()
        lr_scheduler.step()
        warmup_scheduler.step()
        return loss

    return Setup(step, model, optimizer)


def _weight_loss(feats: torch.Tensor, labels: torch.Tensor) -> tuple[float, float, float, torch.Tensor]:
    """bnu-wangxun/Deep_Metric#26: the Weight loss returns mean_pos_sim, mean_neg_sim, prec, loss."""
    sim = feats @ feats.t()
    same = labels[:, None] == labels[None, :]
    pos, neg = sim[same], sim[~same]
    loss = torch.relu(neg.mean() - pos.mean() + 0.1)
    return pos.mean().item(), neg.mean().item(), float((pos.mean() > neg.mean()).item()), loss


def loss_unpacked_in_the_wrong_order() -> Setup:
    # bnu-wangxun/Deep_Metric#26: trainer.py reads `loss, inter_, dist_ap, dist_an = criterion(...)`.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
    x, labels = torch.randn(16, 4, generator=torch.Generator().manual_seed(0)), torch.arange(16) % 4
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-5)

    def step() -> torch.Tensor:
        loss, _inter, _dist_ap, _dist_an = _weight_loss(model(x), labels)  # the fix: *_, loss = ...
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


def _dehaze_loss(out: torch.Tensor, gt: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """diptamath/Nonhomogeneous_Image_Dehazing#2: loss.py returns the total and its terms."""
    l1, l2 = (out - gt).abs().mean(), ((out - gt) ** 2).mean()
    return l1 + l2, l1, l2


def loss_function_returns_a_tuple() -> Setup:
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

    def step() -> torch.Tensor:
        loss = _dehaze_loss(model(x), y)  # the fix: return the total only
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


def loss_zero_without_targets() -> Setup:
    # ghimiredhikura/Complex-YOLOv3#8: when a batch holds no target box, the loss stays 0 (an int).
    model, (x, _) = mlp(), regression()
    targets = torch.zeros(0, 2)  # (index, value) per box: this batch has none
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

    def step() -> torch.Tensor:
        out = model(x)
        loss = 0
        for index, value in targets:
            loss = loss + ((out[int(index)] - value) ** 2).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


CASES = (
    Case(
        "dn_detr_zero_grad",
        "https://github.com/IDEA-Research/DN-DETR/issues/19",
        "optimizer.zero_grad() is missing: every step accumulates all earlier gradients",
        Stage.GRADS_ACCUMULATING,
        ("still held a non-zero .grad", "zero_grad"),
        no_zero_grad,
    ),
    Case(
        "ganalyze_zero_grad",
        "https://github.com/LoreGoetschalckx/GANalyze/issues/7",
        "optimizer.zero_grad() is not used in the training loop",
        Stage.GRADS_ACCUMULATING,
        ("0.weight", "zero_grad"),
        no_zero_grad,
    ),
    Case(
        "gan_sin_opt_d_step",
        "https://github.com/pytorch/pytorch/issues/39141",
        "the discriminator parameters are updated in place by opt_D.step() but needed by G_loss.backward()",
        Stage.BACKWARD_FAILED,
        ("Adam.step() -> D.2.weight", "before that optimizer.step()"),
        gan_step_before_backward,
    ),
    Case(
        "factor_vae_optim_step",
        "https://github.com/1Konny/FactorVAE/issues/15",
        "the VAE's optimizer performs a step before D_tc_loss.backward(), which needs the old values",
        Stage.BACKWARD_FAILED,
        ("Adam.step() -> vae.2.weight", "optimizer.step() writes every parameter it holds in place"),
        vae_step_before_discriminator,
    ),
    Case(
        "disentangling_vae_step",
        "https://github.com/YannDubs/disentangling-vae/issues/62",
        "the call of optimizer.step() before d_tc_loss.backward()",
        Stage.BACKWARD_FAILED,
        ("optimizer.step() ran 1 time(s) earlier in this train_step",),
        vae_step_before_discriminator,
    ),
    Case(
        "simple_cyclegan_inplace",
        "https://github.com/cy-xu/simple_CycleGAN/issues/3",
        "the discriminator parameters are updated in place but also needed afterwards",
        Stage.BACKWARD_FAILED,
        ("SGD.step() -> D.",),
        cyclegan_discriminator_updated,
    ),
    Case(
        "srgan_steplr_per_step",
        "https://github.com/leftthomas/SRGAN/issues/94",
        "StepLR(step_size=epochs // 2) stepped at each training step: the lr quickly becomes zero",
        Stage.PARAMS_NOT_UPDATED,
        ("StepLR is stepped 1 time(s) per call of train_step", "once per epoch"),
        lambda: scheduler_per_step("step"),
    ),
    Case(
        "ivadomed_scheduler_batch_loop",
        "https://github.com/ivadomed/ivadomed/pull/55",
        "the scheduler was stepped in the batch loop instead of the epoch loop",
        Stage.PARAMS_NOT_UPDATED,
        ("CosineAnnealingLR", "T_max"),
        lambda: scheduler_per_step("cosine"),
    ),
    Case(
        "maddpg_critic_updated_first",
        "https://github.com/starry-sky6688/MADDPG/issues/27",
        "actor_loss was computed through the critic, which critic_optim.step() then updated: it is outdated",
        Stage.BACKWARD_FAILED,
        ("Adam.step() -> critic.", "optimizer.step() writes every parameter it holds in place"),
        maddpg_critic_first,
    ),
    Case(
        "dreamer_value_optimizer_step",
        "https://github.com/cross32768/Dreamer_PyTorch/issues/2",
        "action_loss cannot be backpropagated after value_optimizer.step() has run",
        Stage.BACKWARD_FAILED,
        ("Adam.step() -> value_model.2.weight", "before that optimizer.step()"),
        dreamer_value_step_first,
    ),
    Case(
        "deep_metric_float_loss",
        "https://github.com/bnu-wangxun/Deep_Metric/issues/26",
        "the loss returns mean_pos_sim, mean_neg_sim, prec, loss; the trainer unpacks the loss first",
        Stage.BACKWARD_FAILED,
        ("train_step's own code", "a Python float, not a tensor"),
        loss_unpacked_in_the_wrong_order,
    ),
    Case(
        "dehazing_tuple_loss",
        "https://github.com/diptamath/Nonhomogeneous_Image_Dehazing/issues/2",
        "the loss function returns a tuple, not a single value",
        Stage.BACKWARD_FAILED,
        ("a Python tuple, not a tensor", "several values"),
        loss_function_returns_a_tuple,
    ),
    Case(
        "complex_yolo_int_loss",
        "https://github.com/ghimiredhikura/Complex-YOLOv3/issues/8",
        "when the target boxes are empty the loss function returns 0, and loss.backward() is still called",
        Stage.BACKWARD_FAILED,
        ("a Python int, not a tensor",),
        loss_zero_without_targets,
    ),
    Case(
        "pytorch_warmup_zero_grad_after_backward",
        "https://github.com/Tony-Y/pytorch_warmup/issues/12",
        "the parameters are not optimized at all: optimizer.zero_grad() is called after loss.backward()",
        Stage.PARAMS_NOT_UPDATED,
        ("0.weight", "zero_grad", ".grad was None when optimizer.step() ran"),
        zero_grad_between_backward_and_step,
    ),
)
