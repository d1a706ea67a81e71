"""Graph cuts, grad modes, registration, optimizer groups and a graph used twice (also through a cache a
module keeps), as people reported them."""

from __future__ import annotations

import torch
from torch import nn

from field_corpus.case import Case, Setup, mlp, plain_step, regression
from helpers import Stage


def inference_mode_predict() -> Setup:
    # replicate/cog#1681: predict() is decorated with torch.inference_mode(); loss.requires_grad_(True)
    # silences the error but nothing trains.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    @torch.inference_mode()
    def predict() -> torch.Tensor:
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean().clone()
        with torch.inference_mode(False):
            loss = loss.clone().requires_grad_(True)
            loss.backward()
        optimizer.step()
        return loss

    return Setup(predict, model, optimizer)


def inner_loss_under_no_grad() -> Setup:
    # dragen1860/MAML-Pytorch#40: with one inner update the query loss comes from the forward
    # run under torch.no_grad(), and backward raises "does not require grad".
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step() -> torch.Tensor:
        with torch.no_grad():
            loss_q = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss_q.backward()
        optimizer.step()
        return loss_q

    return Setup(step, model, optimizer)


def backprop_on_validation() -> Setup:
    # nianticlabs/monodepth2#24: a loss computed in the validation block, under torch.no_grad(),
    # is backpropagated.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

    def step() -> torch.Tensor:
        model.eval()
        with torch.no_grad():
            loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


def numpy_of_loss() -> Setup:
    # ClownW/Reinforcement-learning-with-PyTorch#3: the loss is stored with .numpy() to plot it.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-2)
    history = []

    def step() -> torch.Tensor:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.numpy())
        return loss

    return Setup(step, model, optimizer)


class _ListNet(nn.Module):
    """pytorch/pytorch#666: layers held in a Python list."""

    def __init__(self, num_layers: int = 3) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layer = nn.Linear(4, 4)
        self.list_of_layers = [nn.Linear(4, 4) for _ in range(num_layers)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layer(x)
        for layer in self.list_of_layers:
            x = torch.tanh(layer(x))
        return x.sum(1, keepdim=True)


def layers_in_list() -> Setup:
    model, (x, y) = _ListNet(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class _Hids(nn.Module):
    """pytorch/pytorch#715: self.hids = [[nn.Linear, activation], ...] in a plain list."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.hids = [[nn.Linear(4, 4), nn.Tanh()] for _ in range(2)]
        self.classifier = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for linear, act in self.hids:
            x = act(linear(x))
        return self.classifier(x)


def hids_in_list() -> Setup:
    model, (x, y) = _Hids(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class _MetaOptimizer(nn.Module):
    """ikostrikov/pytorch-meta-optimizer#11: LSTM cells appended to self.lstms, a list."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear1 = nn.Linear(4, 6)
        self.lstms = []
        for _ in range(2):
            self.lstms.append(nn.LSTMCell(6, 6))
        self.linear2 = nn.Linear(6, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.linear1(x)
        for cell in self.lstms:
            h, _ = cell(h)
        return self.linear2(h)


def lstm_cells_in_list() -> Setup:
    model, (x, y) = _MetaOptimizer(), regression()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class _ParCopy(nn.Module):
    """pytorch/pytorch#17484 and #20089: self.par = nn.Parameter(...).to(device). On a CPU-only
    machine a dtype change makes the same copy (.to('cuda') is the thread's)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(4, 1)
        self.par = nn.Parameter(torch.rand(4)).to(torch.float64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x * self.par.float())


def parameter_to_device() -> Setup:
    model, (x, y) = _ParCopy(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class _GpuOnly(nn.Module):
    """pytorch/pytorch#20089: the module's only parameter is a copy (list(gpu.parameters()) is empty)."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(4)).to(torch.float64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x.double() * self.w).sum(1, keepdim=True).float()


def only_parameter_is_copy() -> Setup:
    model, (x, y) = _GpuOnly(), regression()
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)  # model.parameters() is empty
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


def hidden_state_carried(key: str) -> Setup:
    # MorvanZhou/PyTorch-Tutorial#57 and quark0/darts#56: the RNN's hidden state is carried to the
    # next batch without h_state.data / detach, so backward reaches the freed graph of the last one.
    torch.manual_seed(0)
    rnn, head = nn.RNN(2, 8, batch_first=True), nn.Linear(8, 1)
    model = nn.ModuleDict({"rnn": rnn, "out": head})
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    x, y = torch.randn(1, 5, 2), torch.randn(1, 5, 1)
    state = {"h": None}

    def step() -> torch.Tensor:
        out, state["h"] = rnn(x, state["h"])  # the fix: state["h"] = h.detach()
        loss = ((head(out) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return Setup(step, model, optimizer)


def layer_replaced_after_optimizer() -> Setup:
    # microsoft/nni#4521: speedup_model() replaces layers with smaller ones; the optimizer still
    # holds the old parameters.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model[0] = nn.Linear(4, 8)  # what speedup does, after the optimizer was built
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class _Tagger(nn.Module):
    """zjunlp/HVPNeT#5: an encoder, then fc and a CRF (a transition matrix stands in for it)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.bert = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 3)
        self.crf = nn.Linear(3, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.crf(self.fc(torch.relu(self.bert(x))))


def optimizer_groups_miss_heads() -> Setup:
    # zjunlp/HVPNeT#5: the optimizer's parameter list is built group by group; the groups for crf
    # and fc are made, but never appended to it.
    model, (x, y) = _Tagger(), regression()
    parameters = [{"params": list(model.bert.parameters()), "lr": 1e-2}]
    params = {"lr": 5e-2, "params": list(model.crf.parameters()) + list(model.fc.parameters())}
    assert params  # the fix: parameters.append(params)
    optimizer = torch.optim.AdamW(parameters)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


def pruned_after_optimizer() -> Setup:
    # FasterAI-Labs/fasterai#92: a structured prune (torch-pruning) during training replaces the
    # nn.Parameter objects of the layers it shrinks; the optimizer still holds the old ones.
    model, (x, y) = mlp(), regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    keep = torch.arange(6)  # two of the eight hidden units pruned
    with torch.no_grad():
        model[0].weight = nn.Parameter(model[0].weight[keep].clone())
        model[0].bias = nn.Parameter(model[0].bias[keep].clone())
        model[2].weight = nn.Parameter(model[2].weight[:, keep].clone())
    model[0].out_features = model[2].in_features = 6
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class SoftPool(nn.Module):
    """wangyida/softpool#11: the pooling operator creates its Conv2d layers inside forward."""

    def __init__(self, cabins: int = 8) -> None:
        super().__init__()
        self.num_cabin = cabins

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size_feat = x.shape[1]
        conv2d_1 = nn.Conv2d(size_feat, size_feat, kernel_size=(1, 3), stride=(1, 1))
        last = self.num_cabin - 2 * (3 - 1)
        conv2d_2 = nn.Conv2d(size_feat, size_feat, kernel_size=(1, last), stride=(1, 1))  # fix: in __init__
        return conv2d_2(torch.relu(conv2d_1(x.unsqueeze(2)))).mean((2, 3))


class _PointNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.encoder = nn.Conv1d(3, 8, 1)
        self.pool = SoftPool()
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(torch.relu(self.encoder(x))))


def layers_created_in_forward() -> Setup:
    model = _PointNet()
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(4, 3, 16, generator=g), torch.randn(4, 1, generator=g)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


class _IcmAgent(nn.Module):
    """rll-research/url_benchmark#16: an encoder and a critic; update_encoder is True."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.encoder = nn.Sequential(nn.Linear(9, 8), nn.ReLU())
        self.critic = nn.Sequential(nn.Linear(8 + 2, 16), nn.ReLU(), nn.Linear(16, 1))
        self.update_encoder = True


def encoder_detached_again() -> Setup:
    # rll-research/url_benchmark#16: `if not self.update_encoder: obs = obs.detach()`, then
    # update_critic(obs.detach(), ...) detaches it again, so the encoder never trains.
    agent = _IcmAgent()
    g = torch.Generator().manual_seed(0)
    obs, action, reward = (torch.randn(8, k, generator=g) for k in (9, 2, 1))
    optimizer = torch.optim.Adam([*agent.encoder.parameters(), *agent.critic.parameters()], lr=1e-4)

    def update() -> torch.Tensor:
        h = agent.encoder(obs)
        if not agent.update_encoder:
            h = h.detach()
        q = agent.critic(torch.cat([h.detach(), action], 1))  # the fix: h, already detached when it should be
        critic_loss = (q - reward).pow(2).mean()
        optimizer.zero_grad()
        critic_loss.backward()
        optimizer.step()
        return critic_loss

    return Setup(update, agent, optimizer)


class KVAttention(nn.Module):
    """meta-llama/llama#841: Attention keeps cache_k and cache_v as plain tensors and writes this
    call's keys and values into them with grad mode on."""

    def __init__(self, dim: int = 8, max_seq_len: int = 6, max_batch: int = 4) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.wq, self.wk, self.wv = (nn.Linear(dim, dim, bias=False) for _ in range(3))
        self.cache_k = torch.zeros(max_batch, max_seq_len, dim)
        self.cache_v = torch.zeros(max_batch, max_seq_len, dim)

    def forward(self, x: torch.Tensor, start_pos: int = 0) -> torch.Tensor:
        bsz, seqlen, dim = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        self.cache_k = self.cache_k.to(xq)  # the fix: .detach() here (or write under torch.no_grad())
        self.cache_v = self.cache_v.to(xq)
        self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos : start_pos + seqlen] = xv
        keys = self.cache_k[:bsz, : start_pos + seqlen]
        values = self.cache_v[:bsz, : start_pos + seqlen]
        scores = torch.softmax(xq @ keys.transpose(1, 2) / dim**0.5, dim=-1)
        return scores @ values


def kv_cache_model() -> nn.Sequential:
    model = nn.Sequential()
    model.attention = KVAttention()
    model.output = nn.Linear(8, 1)
    return model


def kv_cache_written_with_grad() -> Setup:
    model = kv_cache_model()
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(4, 6, 8, generator=g), torch.randn(4, 6, 1, generator=g)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    return Setup(plain_step(model, optimizer, x, y), model, optimizer)


CASES = (
    Case(
        "inference_mode_predict",
        "https://github.com/replicate/cog/issues/1681",
        "the torch.inference_mode() decorator over the predict function",
        Stage.GRAD_MODE_DISABLED,
        ("grad mode off",),
        inference_mode_predict,
    ),
    Case(
        "maml_no_grad",
        "https://github.com/dragen1860/MAML-Pytorch/issues/40",
        "with one inner update the loss is the one computed under torch.no_grad()",
        Stage.GRAD_MODE_DISABLED,
        ("grad mode off", "does not require grad"),
        inner_loss_under_no_grad,
    ),
    Case(
        "monodepth_validation",
        "https://github.com/nianticlabs/monodepth2/issues/24",
        "backpropagating on the validation set, computed under torch.no_grad()",
        Stage.GRAD_MODE_DISABLED,
        ("grad mode off",),
        backprop_on_validation,
    ),
    Case(
        "numpy_of_loss",
        "https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3",
        "numpy() called on a tensor that requires grad (the loss kept for a plot)",
        Stage.BACKWARD_FAILED,
        ("numpy()", "train_step's own code"),
        numpy_of_loss,
    ),
    Case(
        "list_of_layers",
        "https://github.com/pytorch/pytorch/issues/666",
        "nn.Module does not look for parameters inside lists",
        Stage.PARAMS_UNREGISTERED,
        ("list_of_layers[0].weight", "nn.ModuleList"),
        layers_in_list,
    ),
    Case(
        "hids_list",
        "https://github.com/pytorch/pytorch/issues/715",
        "modules created in a list are not registered; wrap them in nn.ModuleList",
        Stage.PARAMS_UNREGISTERED,
        ("hids[0][0].weight", "nn.ModuleList"),
        hids_in_list,
    ),
    Case(
        "meta_optimizer_lstms",
        "https://github.com/ikostrikov/pytorch-meta-optimizer/issues/11",
        "LSTM cells appended to a list are not registered, so they are not optimised",
        Stage.PARAMS_UNREGISTERED,
        ("lstms[0].weight_ih",),
        lstm_cells_in_list,
    ),
    Case(
        "parameter_to_device",
        "https://github.com/pytorch/pytorch/issues/17484",
        "nn.Parameter(...).to('cuda') registers nothing: the attribute holds a copy",
        Stage.PARAMS_UNREGISTERED,
        ("par (grad_fn=ToCopyBackward0)", "is_leaf is False", "nn.Parameter(tensor.to(device))"),
        parameter_to_device,
    ),
    Case(
        "parameter_cuda_copy",
        "https://github.com/pytorch/pytorch/issues/20089",
        "a Parameter allocated on the GPU after it is defined: the attribute is a copy, not enlisted",
        Stage.PARAMS_UNREGISTERED,
        ("w (grad_fn=ToCopyBackward0)", "never trained"),
        only_parameter_is_copy,
    ),
    Case(
        "rnn_h_state",
        "https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57",
        "the hidden state is not cut with h_state.data: backward reaches the previous, freed graph",
        Stage.BACKWARD_FAILED,
        ("backward through the graph a second time", "detach carried state"),
        lambda: hidden_state_carried("morvan"),
    ),
    Case(
        "darts_repackage_hidden",
        "https://github.com/quark0/darts/issues/56",
        "hidden states are not detached between batches (repackage_hidden)",
        Stage.BACKWARD_FAILED,
        ("backward through the graph a second time",),
        lambda: hidden_state_carried("darts"),
    ),
    Case(
        "nni_speedup_optimizer",
        "https://github.com/microsoft/nni/issues/4521",
        "layers replaced after the optimizer was built: its parameters are outdated",
        Stage.NOT_IN_OPTIMIZER,
        ("0.weight", "add_param_group"),
        layer_replaced_after_optimizer,
    ),
    Case(
        "hvpnet_heads_not_in_optimizer",
        "https://github.com/zjunlp/HVPNeT/issues/5",
        "the parameters of crf and fc are never appended to the optimizer's parameters: they are not trained",
        Stage.NOT_IN_OPTIMIZER,
        ("fc.weight", "crf.weight", "add_param_group"),
        optimizer_groups_miss_heads,
    ),
    Case(
        "llama_kv_cache_graph",
        "https://github.com/meta-llama/llama/issues/841",
        "the k/v cache of Attention is saved as part of the previous forward's graph (its grad_fn is kept)",
        Stage.BACKWARD_FAILED,
        ("attention.cache_k", "model.attention.cache_k.grad_fn", "detach"),
        kv_cache_written_with_grad,
    ),
    Case(
        "fasterai_prune_rebinds_parameters",
        "https://github.com/FasterAI-Labs/fasterai/pull/92",
        "pruning replaces the Parameters of the layers it shrinks; the optimizer references the old ones",
        Stage.NOT_IN_OPTIMIZER,
        ("0.weight", "2.weight", "add_param_group"),
        pruned_after_optimizer,
    ),
    Case(
        "softpool_layers_in_forward",
        "https://github.com/wangyida/softpool/issues/11",
        "nn layers created in the forward function: their weights are never saved into the checkpoint",
        Stage.PARAMS_UNREGISTERED,
        ("Conv2d", "'pool' (SoftPool)", "__init__"),
        layers_created_in_forward,
    ),
    Case(
        "url_benchmark_obs_detached_again",
        "https://github.com/rll-research/url_benchmark/issues/16",
        "after the update_encoder check obs and next_obs are detached again: the encoder is never updated",
        Stage.GRAD_MISSING,
        ("encoder.0.weight", "the path is cut after 'encoder'"),
        encoder_detached_again,
    ),
)
