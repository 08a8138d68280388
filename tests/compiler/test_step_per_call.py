"""compile_step keeps, between calls, what it used to work out at every call (the model's
buffers, the compiled function behind AOTAutograd's wrapper): each change that must reach the
program, made between two steps, still trains as eager does."""
import pytest
import torch
from torch import nn

import bessemer

from test_step import CFG, OPTIMIZERS, Net, _assert_close_state, _data, _eager_step, loss_fn


class Scaled(nn.Module):
    """Net with an optional buffer the forward reads when it is registered."""

    def __init__(self):
        super().__init__()
        self.net = Net(p_drop=0.0)

    def forward(self, x):
        s = getattr(self, "scale", None)
        return self.net(x if s is None else x * s)


def _set_running_mean(m):
    m.net.bn.running_mean = m.net.bn.running_mean.clone() + 0.5      # a new tensor in the same slot


def _register(m):
    m.register_buffer("scale", torch.full((16,), 0.5))


def _new_bn(m):
    """The BatchNorm replaced by another with other statistics (its parameters kept)."""
    bn = nn.BatchNorm1d(32)
    bn.weight, bn.bias = m.net.bn.weight, m.net.bn.bias
    bn.running_var.fill_(2.0)
    m.net.bn = bn


def _drop_stats(m):
    """running statistics set to None: BatchNorm normalizes by the batch's, and keeps none."""
    m.net.bn.running_mean = None
    m.net.bn.running_var = None


def _eval_mode_bn(m):
    m.net.bn.eval()


CHANGES = {"buffer_replaced": _set_running_mean, "buffer_registered": _register, "module_replaced": _new_bn,
           "buffer_set_to_none": _drop_stats, "train_flag": _eval_mode_bn}


@pytest.mark.parametrize("change", list(CHANGES))
def test_change_between_steps_trains_as_eager(change):
    data = _data(6)
    torch.manual_seed(0)
    me, mc = Scaled(), Scaled()
    mc.load_state_dict(me.state_dict())
    oe, oc = OPTIMIZERS["adamw"](me.parameters()), OPTIMIZERS["adamw"](mc.parameters())
    step = bessemer.compile_step(mc, oc, loss_fn, max_grad_norm=0.5, set_grads=True, **CFG)
    for i, (x, y) in enumerate(data):
        if i == 3:
            CHANGES[change](me)
            CHANGES[change](mc)
        le, ne = _eager_step(me, oe, x, y, 0.5)
        lc = step(x, y)
        torch.testing.assert_close(lc, le, rtol=1e-5, atol=1e-6, msg=lambda m: f"step {i}: {m}")
        torch.testing.assert_close(step.grad_norm, ne, rtol=1e-5, atol=1e-6)
    assert step.compiled_steps == 6 and step.eager_steps == 0
    assert sorted(me.state_dict()) == sorted(mc.state_dict())
    _assert_close_state(dict(sorted(me.state_dict().items())), dict(sorted(mc.state_dict().items())))
    _assert_close_state(oe.state_dict()["state"][0], oc.state_dict()["state"][0])
    # the step ran the compiled function behind AOTAutograd's wrapper
    assert all(p.direct is not None for p in step.programs.values())


def test_batch_in_a_dict_and_a_new_shape():
    """Arguments that are pytrees (a dict batch) and a batch size that changes: both in the key."""
    data = _data(4)
    torch.manual_seed(0)
    me, mc = Net(p_drop=0.0), Net(p_drop=0.0)
    mc.load_state_dict(me.state_dict())
    oe, oc = OPTIMIZERS["sgd-momentum"](me.parameters()), OPTIMIZERS["sgd-momentum"](mc.parameters())

    def dict_loss(model, batch):
        return loss_fn(model, batch["x"], batch["y"])
    step = bessemer.compile_step(mc, oc, dict_loss, **CFG)
    for i, (x, y) in enumerate(data):
        if i == 2:
            x, y = x[:5], y[:5]
        le, _ = _eager_step(me, oe, x, y, None)
        lc = step({"x": x, "y": y})
        torch.testing.assert_close(lc, le, rtol=1e-5, atol=1e-6)
    _assert_close_state(me.state_dict(), mc.state_dict())
    assert len(step.programs) == 2 and step.eager_steps == 0
