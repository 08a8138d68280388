"""Ops that real model families bring and that must compile, not run as ATen
calls reported as missing lowerings: weight norm's backward (wav2vec2's
positional convolution), the vector norm it decomposes into, and the
as_strided_scatter AOTAutograd writes for the backward of a squeeze after a
1-d adaptive pool (Swin's pooler). Each is checked against eager, forward
and gradients, with fallback="error"."""
import copy
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import bessemer
from bessemer.compiler.lowering import lower as lowering


def _compiled_vs_eager(module: nn.Module, x: torch.Tensor, cache: str, monkeypatch) -> tuple[list, list]:
    """(the compiler's warnings, the ops that ran as ATen calls)"""
    # each op without a lowering is reported once per process: start from none reported
    monkeypatch.setattr(lowering, "_reported", set())
    externs = []
    extern = lowering.Lowerer.extern

    def spy(self, n, args, kwargs):
        externs.append(lowering.op_name(n.target))
        return extern(self, n, args, kwargs)

    monkeypatch.setattr(lowering.Lowerer, "extern", spy)
    torch.manual_seed(0)
    compiled = copy.deepcopy(module)
    xe, xc = x.clone().requires_grad_(), x.clone().requires_grad_()
    out_e = module(xe)
    out_e.square().sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bessemer.compile(compiled, cache_dir=cache, fallback="error")
        out_c = compiled(xc)
        out_c.square().sum().backward()
    torch.testing.assert_close(out_c, out_e, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(xc.grad, xe.grad, rtol=1e-5, atol=1e-6)
    for (name, pe), pc in zip(module.named_parameters(), compiled.parameters()):
        torch.testing.assert_close(pc.grad, pe.grad, rtol=1e-5, atol=1e-6, msg=lambda m: f"{name}: {m}")
    return [str(w.message) for w in caught if "bessemer:" in str(w.message)], externs


@pytest.mark.parametrize("dim", [0, 2])
def test_weight_norm_conv_compiles(dim, tmp_path, monkeypatch):
    torch.manual_seed(0)
    conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(8, 8, 5, padding=2, groups=2), name="weight", dim=dim)
    reported, externs = _compiled_vs_eager(conv, torch.randn(2, 8, 12), str(tmp_path), monkeypatch)
    assert reported == []
    assert set(externs) <= {"convolution", "convolution_backward"}, externs


class _Pooler(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(16)
        self.pool = nn.AdaptiveAvgPool1d(1)

    def forward(self, x):                        # [batch, tokens, channels] -> [batch, channels]
        return torch.flatten(self.pool(self.norm(x).transpose(1, 2)), 1)


def test_squeeze_after_a_1d_pool_compiles(tmp_path, monkeypatch):
    reported, externs = _compiled_vs_eager(_Pooler(), torch.randn(2, 6, 16), str(tmp_path), monkeypatch)
    assert reported == []
    assert "as_strided_scatter" not in externs, externs
