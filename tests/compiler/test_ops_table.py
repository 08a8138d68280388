"""ops.py is the whole op table: every op has a C++ and a Triton spelling, each
template names only the fields its renderer fills, and a dtype an op does not take
is a clear error rather than wrong code. (tests/ops run every op against eager.)"""
from __future__ import annotations

import pytest
import torch

from bessemer.compiler.codegen import cpp, triton
from bessemer.compiler.codegen.kernel import CodegenError
from bessemer.compiler.ir.graph import Graph
from bessemer.compiler.ir.ops import OPS, spelling

DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64, torch.int32, torch.bool)


def _node(op: str, dt: torch.dtype):
    g = Graph()
    x = g.input((4,), dt, (1,))
    out_dt = torch.bool if OPS[op].result == "bool" else dt
    return g.pointwise(op, [x] * OPS[op].arity, out_dt)


@pytest.mark.parametrize("op", sorted(OPS))
def test_every_op_renders_in_both_languages(op):
    d = OPS[op]
    assert d.cpp and d.triton, f"{op} lacks a spelling"
    rendered = 0
    for dt in DTYPES:
        n = _node(op, dt)
        names = ["x", "y", "z"][:d.arity]
        for lang, render, table in (("cpp", cpp.render_op, cpp.code_for_op()[op]),
                                    ("triton", triton.render_op, d.triton)):
            if spelling(table, n.dtype) is None:
                with pytest.raises(CodegenError, match=f"{op} on"):
                    render(op, names, n, [dt] * d.arity)
                continue
            code = render(op, names, n, [dt] * d.arity)
            assert "{" not in code and "None" not in code, (lang, dt, code)
            assert all(v in code for v in names), (lang, dt, code)
            rendered += 1
    assert rendered >= 2   # at least the float dtypes, in both languages


def test_templates_read_the_dtype_first():
    # a cast to bf16 is rounded; one to float32 is a plain conversion
    g = Graph()
    x = g.input((4,), torch.int32, (1,))
    assert cpp.render_op("cast", ["x"], g.cast(x, torch.bfloat16), [torch.int32]) == "bf16_round((float)(x))"
    assert cpp.render_op("cast", ["x"], g.cast(x, torch.float32), [torch.int32]) == "((float)(x))"
    assert triton.render_op("cast", ["x"], g.cast(x, torch.bfloat16), [torch.int32]) == \
        "_to_bf16((x).to(tl.float32)).to(tl.float32)"
    # libdevice gets typed operands where a literal would be weakly typed
    f = g.input((4,), torch.float64, (1,))
    assert triton.render_op("pow", ["x", "2.0"], g.pointwise("pow", [f, f], torch.float64),
                            [torch.float64] * 2) == "libdevice.pow(x, tl.full([], 2.0, tl.float64))"
