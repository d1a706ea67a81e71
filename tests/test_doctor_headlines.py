"""diagnose says what it found: a clip before backward is named, the headline of a finding whose stage
describes another cause (eval mode, a term without gradient, weights the optimizer wrote, a target that
requires grad, probabilities fed to a logits loss) says what was found, evidence sentences hold for the
step at hand, and the intended=[...] it suggests is complete.
Each bug sits beside a healthy neighbour that must stay quiet or keep the stage's own words."""

from __future__ import annotations

import torch
from field_corpus.case import loss_step, mlp, regression
from field_corpus.cases_precision import pure_fp16_adam
from torch import nn
from torch.nn import functional as F

from helpers import Stage, diagnose

X, Y = regression()


def _headline(found) -> str:
    return repr(found).split("\nevidence:")[0].replace("\n  ", " ")


# ---- a clip before backward ---------------------------------------------------------------------
def _clip_first(set_to_none: bool = True):
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step():
        optimizer.zero_grad(set_to_none=set_to_none)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # clips nothing yet
        loss = F.mse_loss(model(X), Y)
        loss.backward()
        optimizer.step()
        return loss

    return step, model, optimizer


def test_a_clip_right_after_zero_grad_is_named_with_what_it_received():
    found = diagnose(*_clip_first())
    assert found.stage is Stage.GRAD_MAGNITUDE and found.names == ["clip_grad_norm_"]
    text = " ".join(found.evidence)
    assert "clip_grad_norm_ ran before backward() in this step: of the 4 parameters it received" in text
    assert "none held a .grad" in text and "the norm it returned is 0" in text
    assert "clipped nothing that optimizer.step() used" in _headline(found)
    assert "exploding or vanishing" not in _headline(found)
    step, model, optimizer = _clip_first(set_to_none=False)
    step()  # the gradients exist now; zero_grad(set_to_none=False) zeroes them, leaves them held
    kept = " ".join(diagnose(step, model, optimizer).evidence)
    assert "4 held a .grad, every one all zero" in kept


def test_a_clip_on_gradients_accumulated_by_earlier_calls_is_quiet():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    calls = [0]

    def step():  # the update of the previous calls' gradients first, then this call's backward
        if calls[0]:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            optimizer.zero_grad()
        calls[0] += 1
        loss = F.mse_loss(model(X), Y)
        loss.backward()
        return loss

    found = diagnose(step, model, optimizer, steps=3)
    assert not any("clip" in e for e in found.evidence), found
    assert found.stage is not Stage.GRAD_MAGNITUDE


# ---- eval mode: the headline and the intended list ----------------------------------------------
def _dropouts(n: int) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), *(nn.Dropout(0.1) for _ in range(n)), nn.Linear(8, 1))


def test_eval_mode_is_the_headline_and_grad_mode_off_keeps_its_own():
    model = _dropouts(1).eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    found = diagnose(loss_step(optimizer, lambda: F.mse_loss(model(X), Y)), model, optimizer)
    assert found.stage is Stage.GRAD_MODE_DISABLED
    assert "modules ran in eval mode" in _headline(found) and "grad mode is off" not in _headline(found)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def no_grad_step():
        optimizer.zero_grad()
        with torch.no_grad():
            loss = F.mse_loss(model(X), Y)
        return loss

    found = diagnose(no_grad_step, model, optimizer)
    assert found.stage is Stage.GRAD_MODE_DISABLED and "grad mode is off" in _headline(found)


def test_the_suggested_intended_list_names_every_module_and_quiets_the_check_as_written():
    model = _dropouts(8).eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    step = loss_step(optimizer, lambda: F.mse_loss(model(X), Y))
    found = diagnose(step, model, optimizer)
    names = [str(i) for i in range(1, 9)]
    assert found.names == names and "6 (Dropout) and 2 more" in found.evidence[0]
    suggested = repr(names).replace('"', "'")
    assert f"intended={suggested}" in found.advice
    assert diagnose(step, model, optimizer, intended=names).ok


# ---- a term cut from another module --------------------------------------------------------------
def _two_heads(cut):
    model = nn.ModuleDict({"a": nn.Linear(4, 1), "b": nn.Linear(4, 1)})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return (
        loss_step(optimizer, lambda: F.mse_loss(model.a(X), Y) + cut(F.mse_loss(model.b(X), Y))),
        model,
        optimizer,
    )


def test_a_cut_term_that_was_another_modules_only_path_names_the_parameters_it_starves():
    for cut in (lambda t: t.detach(), lambda t: torch.tensor(t.item())):
        found = diagnose(*_two_heads(cut))
        text = " ".join(found.evidence)
        assert found.stage is Stage.LOSS_NOT_IN_GRAPH and "a term that carries no gradient" in text
        assert "every parameter a gradient" not in text
        assert "the parameters b.weight, b.bias got no gradient in this step" in text
        assert "the loss adds a term that carries no gradient" in _headline(found)


def test_a_cut_term_beside_terms_that_reach_every_parameter_still_says_so():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def loss_of():
        out = model(X)
        return F.mse_loss(out, Y) + torch.tensor(out.mean().item())

    found = diagnose(loss_step(optimizer, loss_of), model, optimizer)
    text = " ".join(found.evidence)
    assert (
        found.stage is Stage.LOSS_NOT_IN_GRAPH and "the other terms give every parameter a gradient" in text
    )
    assert "got no gradient in this step" not in text


# ---- weights the optimizer wrote -----------------------------------------------------------------
def test_non_finite_weights_written_by_adam_in_float16_are_headlined_as_the_optimizers_doing():
    setup = pure_fp16_adam()
    found = diagnose(setup.step, setup.model, setup.optimizer)
    assert found.stage is Stage.FORWARD_NON_FINITE and found.step == 1
    assert _headline(found).endswith(
        "optimizer.step() wrote NaN or Inf into the parameters, from a finite loss and finite gradients"
    )
    assert "the forward pass or the loss holds NaN" not in _headline(found)
    assert "<b>FORWARD_NON_FINITE</b> optimizer.step() wrote NaN" in found._repr_html_()


def test_a_forward_that_makes_nan_keeps_the_stages_headline_and_float32_adam_is_ok():
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    found = diagnose(loss_step(optimizer, lambda: torch.log(model(X) - 100.0).mean()), model, optimizer)
    assert found.stage is Stage.FORWARD_NON_FINITE
    assert _headline(found).endswith("the forward pass or the loss holds NaN or Inf")
    setup = pure_fp16_adam()
    model = setup.model.float()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = X * 1.0
    assert diagnose(
        loss_step(optimizer, lambda: ((model(x) * 1e-3 - Y * 1e-3) ** 2).mean()), model, optimizer
    ).ok


# ---- what the loss computes: an undetached target, probabilities fed to a logits loss ------------
def _loss_of(loss_of):
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return loss_step(optimizer, lambda: loss_of(model)), model, optimizer


def test_a_target_that_requires_grad_is_the_headline_and_a_cut_loss_keeps_its_own():
    found = diagnose(*_loss_of(lambda m: F.mse_loss(m(X), Y + 0.5 * m(X + 1))))  # bootstrapped, no detach
    assert found.stage is Stage.LOSS_NOT_IN_GRAPH
    assert "a loss target requires grad" in _headline(found)
    assert "not connected to any trainable parameter" not in _headline(found)
    assert diagnose(*_loss_of(lambda m: F.mse_loss(m(X), Y + 0.5 * m(X + 1).detach()))).ok
    cut = diagnose(*_loss_of(lambda m: F.mse_loss(m(X).detach(), Y)))  # no parameter in the graph
    assert cut.stage is Stage.LOSS_NOT_IN_GRAPH and "not connected to any trainable parameter" in _headline(
        cut
    )


def test_probabilities_fed_to_a_logits_loss_are_the_headline():
    labels = (Y > 0).float()
    found = diagnose(*_loss_of(lambda m: F.binary_cross_entropy_with_logits(torch.sigmoid(m(X)), labels)))
    assert found.stage is Stage.LOSS_NOT_IN_GRAPH
    assert "received probabilities: it is applied twice" in _headline(found)
    assert diagnose(*_loss_of(lambda m: F.binary_cross_entropy_with_logits(m(X), labels))).ok


def test_the_eval_mode_evidence_says_what_eval_changes_in_the_modules_that_ran_in_it():
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
    model[1].eval()  # only the BatchNorm, the model itself stays in train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    found = diagnose(loss_step(optimizer, lambda: F.mse_loss(model(X), Y)), model, optimizer)
    text = " ".join(found.evidence)
    assert (
        found.stage is Stage.GRAD_MODE_DISABLED and "BatchNorm normalises with its running statistics" in text
    )
    assert "dropout" not in text and "put in eval mode on their own" in text and "model.eval()" not in text
    dropped = _dropouts(1).eval()
    optimizer = torch.optim.SGD(dropped.parameters(), lr=0.1)
    text = " ".join(
        diagnose(loss_step(optimizer, lambda: F.mse_loss(dropped(X), Y)), dropped, optimizer).evidence
    )
    assert (
        "dropout drops nothing" in text
        and "BatchNorm" not in text
        and "was not followed by model.train()" in text
    )
