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


def _scalar_kernels(source: str, tmp_path) -> list[str]:
    path = tmp_path / "k.cpp"
    path.write_text(source)
    flags = [f for f in build.build_flags() if f != "-shared"]
    proc = subprocess.run([*build.compiler_cmd(), *flags, "-c", "-fopt-info-vec-optimized", str(path),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True, check=True)
    vectorized = {int(m.group(1)) for m in re.finditer(r"k\.cpp:(\d+):\d+: optimized: loop vectorized",
                                                        proc.stderr)}
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
