"""The C++ kernels' loops vectorize where the math functions have vector variants.

Each kernel's source is built again with the project's own flags and gcc's vectorizer
report (`-fopt-info-vec-optimized`); every kernel of the case must have a vectorized loop.
A rotary embedding computes sin and cos of one value: gcc would merge the two calls into
one `sincos`, which has no vector variant, and leave the loop scalar.
"""
from __future__ import annotations

import re
import subprocess

import pytest
import torch

import bessemer
from bessemer.compiler.codegen import build, cpp

pytestmark = pytest.mark.skipif(not cpp._use_mvec(), reason="no libmvec: no vector math functions here")


def _vectorized_lines(source: str, tmp_path) -> set[int]:
    """The source lines gcc's vectorizer report names as vectorized loops, built with the
    project's own flags."""
    path = tmp_path / "k.cpp"
    path.write_text(source)
    flags = [f for f in build.build_flags() if f != "-shared"]
    proc = subprocess.run([*build.compiler_cmd(), *flags, "-c", "-fopt-info-vec-optimized", str(path),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True, check=True)
    return {int(m.group(1)) for m in re.finditer(r"k\.cpp:(\d+):\d+: optimized: loop vectorized", proc.stderr)}


def _scalar_kernels(source: str, tmp_path) -> list[str]:
    vectorized = _vectorized_lines(source, tmp_path)
    lines = source.split("\n")
    starts = [(i + 1, re.search(r"void (\w+)\(", line).group(1))
              for i, line in enumerate(lines) if line.startswith('extern "C" void')]
    bounds = starts + [(len(lines) + 1, None)]
    return [name for (lo, name), (hi, _) in zip(starts, bounds[1:])
            if not any(lo <= n < hi for n in vectorized)]


class Rope(torch.nn.Module):
    def forward(self, x, y, freqs):
        return x * torch.cos(freqs) + y * torch.sin(freqs)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_rotary_embedding_kernel_vectorizes(dtype, tmp_path):
    x, y = torch.randn(2, 4, 2, 32, 64).to(dtype)
    freqs = torch.randn(32, 64)
    model = Rope()
    bessemer.compile(model, fallback="error")
    torch.testing.assert_close(model(x, y, freqs), Rope()(x, y, freqs))
    graphs = model.forward._bessemer_backend.compiled
    assert graphs and all(cg.kernels for cg in graphs)
    for cg in graphs:
        assert "sinf(" in cg.source and "cosf(" in cg.source
        assert _scalar_kernels(cg.source, tmp_path) == []


def _unvectorized_loops(source: str, tmp_path) -> list[int]:
    """The lines of `#pragma omp simd` loops gcc left scalar."""
    vectorized = _vectorized_lines(source, tmp_path)
    lines = source.split("\n")
    # gcc names a vectorized loop by its pragma's line or one of its statements' lines: a
    # pragma's loop is vectorized when a report falls between it and the next pragma
    pragmas = [i + 1 for i, line in enumerate(lines) if line.strip().startswith("#pragma omp")]
    bounds = pragmas + [len(lines) + 1]
    return [p for p, q in zip(pragmas, bounds[1:]) if lines[p - 1].strip().startswith("#pragma omp simd")
            and not any(p <= n < q for n in vectorized)]


class BiasedSoftmax(torch.nn.Module):
    """T5's attention scores: a position bias kept [query, key, head] read per head (stride
    4), a causal mask as a select of -FLT_MAX, then softmax."""
    def __init__(self, causal: bool):
        super().__init__()
        self.causal = causal

    def forward(self, scores, bias):
        b = bias.permute(2, 0, 1)
        if self.causal:
            n = scores.shape[-1]
            keep = torch.ones(n, n, dtype=torch.bool).tril()
            b = torch.where(keep, b, torch.finfo(scores.dtype).min)
        return torch.softmax(scores + b, dim=-1)


@pytest.mark.parametrize("causal", [False, True])
def test_a_masked_softmax_vectorizes_every_loop(causal, tmp_path):
    """Every vector loop of the softmax vectorizes: the strided bias read in a select's branch
    is read before the select, the row's all -inf flag is a 64-bit int, and the masked exp
    runs as expf_lo (no libm slow lanes); an unmasked one keeps expf."""
    torch.manual_seed(0)
    scores, bias = torch.randn(2, 4, 64, 64), torch.randn(64, 64, 4)
    model = BiasedSoftmax(causal)
    bessemer.compile(model, fallback="error")
    torch.testing.assert_close(model(scores, bias), BiasedSoftmax(causal)(scores, bias))
    graphs = model.forward._bessemer_backend.compiled
    assert graphs and all(cg.kernels for cg in graphs)
    for cg in graphs:
        kernels = cg.source[cg.source.index('extern "C" void'):]
        assert ("expf_lo(" in kernels) == causal
        assert _unvectorized_loops(cg.source, tmp_path) == []


class LowExp(torch.nn.Module):
    def forward(self, x):
        return torch.exp(torch.where(x > -1e3, x, float("-inf")))


def test_exp_far_below_zero_as_eager(tmp_path):
    """expf_lo where a low constant reaches the exp: subnormal results kept (not flushed),
    zero below them, -inf to 0, NaN and overflow as eager's."""
    values = [-float("inf"), -3e38, -2e3, -200.0, -110.0, -104.5, -103.9, -100.0, -95.0, -90.0,
              -87.5, -87.2, -87.0, -86.9, -50.0, -1.0, 0.0, 1.0, 50.0, 88.0, 88.8, 100.0, float("nan")]
    x = torch.tensor(values * 20)    # enough elements for a vector loop
    model = LowExp()
    bessemer.compile(model, fallback="error")
    out, ref = model(x), LowExp()(x)
    assert "expf_lo(" in model.forward._bessemer_backend.compiled[0].source
    torch.testing.assert_close(out, ref, rtol=4e-6, atol=3e-45, equal_nan=True)
    assert torch.equal(out == 0, ref == 0)     # no subnormal flushed to zero, no zero made one
