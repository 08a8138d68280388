"""An unbind of which only some slices are read is traced as selects (capture/unbind.py):
values and gradients as eager's, and no view per row left for AOTAutograd to trace."""
import torch

import bessemer
from bessemer.compiler.capture.unbind import select_unbound


def _dynamo_graph(fn, *args):
    graphs = []

    def grab(gm, example_inputs):
        graphs.append(gm)
        return gm
    torch._dynamo.reset()
    torch.compile(fn, backend=grab)(*args)
    return graphs[0]


def _some_rows(x):
    a = x.unbind(0)[51]
    b = torch.unbind(x, 1)
    return a * 2, b[2] + b[-1]


def _whole_tuple(x):
    rows = x.unbind(1)
    return rows, rows[0] * 3


def test_an_unbind_read_by_index_becomes_selects():
    gm = _dynamo_graph(_some_rows, torch.randn(4096, 6))
    assert select_unbound(gm) == 2
    assert not any("unbind" in str(n.target) for n in gm.graph.nodes)
    x = torch.randn(4096, 6)
    for got, want in zip(gm(x), _some_rows(x)):
        assert torch.equal(got, want)


def test_an_unbind_every_slice_of_which_is_read_is_kept():
    gm = _dynamo_graph(_whole_tuple, torch.randn(5, 3))
    assert select_unbound(gm) == 0


def test_compiled_values_and_gradients_match_eager():
    for fn in (_some_rows, _whole_tuple):
        torch._dynamo.reset()
        x0 = torch.randn(300, 6) if fn is _some_rows else torch.randn(5, 3)
        compiled = bessemer.compile(fn, fallback="error", graph_cache=False)
        results = []
        for f in (compiled, fn):
            x = x0.clone().requires_grad_(True)
            outs = f(x)
            flat = [o for out in outs for o in (out if isinstance(out, tuple) else (out,))]
            sum((o * (i + 1)).sum() for i, o in enumerate(flat)).backward()
            results.append((flat, x.grad))
        (got, got_grad), (want, want_grad) = results
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b)
        torch.testing.assert_close(got_grad, want_grad)
        assert compiled._bessemer_backend.compiled
