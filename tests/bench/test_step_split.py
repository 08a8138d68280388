"""Where a step's time goes: the profiled step's parts, the matmul FLOPs counted from argument
shapes, and the bench page's section."""
import copy

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import bessemer
from bessemer.bench import measure, report
from bessemer.compiler.runtime import step_split
from bessemer.compiler.runtime.graph_call import GraphCall

aten = torch.ops.aten

# The parts add up to the step by construction (`rest` is the remainder); clamping a part that
# a clock's jitter would make negative at zero may add this much of the step on top.
SUM_TOLERANCE = 0.01


def test_mlp_step_split_counts_its_matmuls_and_adds_up():
    torch.manual_seed(0)
    B, D, H, O = 16, 48, 96, 24
    model = torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.ReLU(), torch.nn.Linear(H, O))
    twin = copy.deepcopy(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    opt_eager = torch.optim.AdamW(twin.parameters(), lr=1e-2)
    # the input takes a gradient too, so every linear layer's backward is two matmuls
    x, y = torch.randn(B, D, requires_grad=True), torch.randn(B, O)

    def fwd_bwd(m):
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        return loss

    model_flops = measure.count_flops(lambda: fwd_bwd(twin))
    twin.zero_grad(set_to_none=True)
    bessemer.compile(model, optimizer=opt, fallback="error")
    for m, o in ((model, opt), (twin, opt_eager)):
        for _ in range(2):
            o.zero_grad(set_to_none=True)
            fwd_bwd(m)
            o.step()
    graphs = model.forward._bessemer_backend.compiled
    assert len(graphs) == 2 and all(isinstance(cg.fn, GraphCall) for cg in graphs)   # forward, backward
    before = [(cg.fn.fn, dict(cg.fn.fn.__globals__)) for cg in graphs]

    with step_split.step_profile(graphs, torch.device("cpu")) as prof:
        with prof.step():
            opt.zero_grad(set_to_none=True)
            loss = fwd_bwd(model)
            with prof.update():
                opt.step()
    s = prof.summary()
    opt_eager.zero_grad(set_to_none=True)
    loss_eager = fwd_bwd(twin)
    opt_eager.step()

    # profiling changes nothing: the step's loss, the input's gradient and the trained parameters are eager's
    torch.testing.assert_close(loss, loss_eager)
    for p, q in zip(model.parameters(), twin.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    # and the timers are gone again
    assert [(cg.fn.fn, dict(cg.fn.fn.__globals__)) for cg in graphs] == before

    forward = 2 * B * D * H + 2 * B * H * O
    assert s["matmul_flops"] == forward + 2 * forward == model_flops
    assert s["matmul_calls"] == 6 and s["graph_calls"] == 2 and s["kernels"] > 0
    assert s["kernel_bytes"] > 0
    parts = {k: s[k] for k in step_split.PARTS}
    assert all(v >= 0 for v in parts.values()), parts
    named = sum(v for k, v in parts.items() if k != "rest_ms")
    assert 0 < named <= s["step_ms"]
    assert s["matmul_ms"] > 0 and s["update_ms"] > 0
    assert s["matmul_ms"] + s["other_aten_ms"] + s["kernel_ms"] <= s["graph_ms"]
    assert abs(sum(parts.values()) - s["step_ms"]) <= SUM_TOLERANCE * s["step_ms"]


def _counted(fn):
    counter = FlopCounterMode(display=False, custom_mapping=measure._extra_flop_formulas())
    with counter:
        out = fn()
    return out, counter.get_total_flops()


@pytest.mark.parametrize("case", ["mm", "addmm", "bmm", "baddbmm", "linear", "conv", "conv_strided",
                                  "conv_transposed", "conv_backward", "conv_backward_grouped",
                                  "conv_backward_depthwise", "conv_transposed_backward_grouped",
                                  "sdpa", "sdpa_backward"])
def test_matmul_flops_match_the_bench_flop_count(case):
    """Each formula against torch's flop counter with the bench's own formulas (the count MFU uses)."""
    g = torch.Generator().manual_seed(0)

    def r(*shape):
        return torch.randn(*shape, generator=g)

    x, w = r(2, 6, 9, 9), r(8, 6, 3, 3)
    conv = (x, w, r(8), [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    q, k, v = r(2, 3, 10, 8), r(2, 3, 12, 8), r(2, 3, 12, 8)   # (the CPU kernel takes one head size)
    calls = {
        "mm": (aten.mm.default, (r(5, 7), r(7, 3))),
        "addmm": (aten.addmm.default, (r(3), r(5, 7), r(7, 3))),
        "bmm": (aten.bmm.default, (r(4, 5, 7), r(4, 7, 3))),
        "baddbmm": (aten.baddbmm.default, (r(4, 5, 3), r(4, 5, 7), r(4, 7, 3))),
        "linear": (aten.linear.default, (r(2, 5, 7), r(3, 7), r(3))),
        "conv": (aten.convolution.default, (x, w, r(8), [1, 1], [1, 1], [1, 1], False, [0, 0], 1)),
        "conv_strided": (aten.convolution.default, (x, w, None, [2, 2], [0, 0], [1, 1], False, [0, 0], 1)),
        "conv_transposed": (aten.convolution.default,
                            (r(2, 6, 5, 5), r(6, 4, 3, 3), None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1)),
        "conv_backward": (aten.convolution_backward.default,
                          (r(2, 8, 9, 9), x, w, [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                           [True, True, False])),
        "conv_backward_grouped": (aten.convolution_backward.default,
                                  (r(2, 8, 9, 9), x, r(8, 3, 3, 3), [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 2,
                                   [True, True, True])),
        "conv_backward_depthwise": (aten.convolution_backward.default,
                                    (r(2, 6, 9, 9), x, r(6, 1, 3, 3), [6], [1, 1], [1, 1], [1, 1], False, [0, 0],
                                     6, [False, True, False])),
        "conv_transposed_backward_grouped": (aten.convolution_backward.default,
                                             (r(2, 4, 9, 9), r(2, 6, 5, 5), r(6, 2, 3, 3), None, [2, 2], [1, 1],
                                              [1, 1], True, [0, 0], 2, [True, True, False])),
        "sdpa": (aten._scaled_dot_product_flash_attention_for_cpu.default, (q, k, v)),
    }
    if case == "sdpa_backward":
        out, lse = aten._scaled_dot_product_flash_attention_for_cpu.default(q, k, v)
        op = aten._scaled_dot_product_flash_attention_for_cpu_backward.default
        args = (r(*out.shape), q, k, v, out, lse, 0.0, False)
    else:
        op, args = calls[case]
    result, expected = _counted(lambda: op(*args))
    assert expected > 0
    assert step_split.matmul_flops(op, args, {}, result) == expected


def test_conv_flops_by_hand():
    """Known shapes: 2 * output elements * (input channels per group * kernel) forward; the
    backward is the input's and the weight's gradient, each as much, as its mask asks."""
    x, w = torch.randn(2, 4, 8, 8), torch.randn(6, 2, 3, 3)       # 2 groups
    out = aten.convolution.default(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 2)
    forward = 2 * (2 * 6 * 8 * 8) * (2 * 3 * 3)
    assert step_split.matmul_flops(aten.convolution.default, (x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 2),
                                   {}, out) == forward
    back = (out, x, w, [6], [1, 1], [1, 1], [1, 1], False, [0, 0], 2)
    assert step_split.matmul_flops(aten.convolution_backward.default, (*back, [True, True, True])) == 2 * forward
    assert step_split.matmul_flops(aten.convolution_backward.default, (*back, [False, True, True])) == forward
    assert step_split.matmul_flops(aten.add.Tensor, (x, x)) is None


def _split_row():
    return {"model": "gpt2", "mode": "bessemer", "status": "ok", "error": None, "phase_errors": {},
            "batch": 8, "seq": 128, "image": None, "step_s": {"median": 0.1, "spread": 0.02},
            "first_step_cold_s": 5.0, "final_loss": 2.0, "losses": [2.0], "mfu": 0.5,
            "flops_per_step": 6e9, "copy_gbps": 20.0,
            "step_split": {"step_ms": 100.0, "graph_calls": 4, "graph_ms": 80.0,
                           "matmul_ms": 60.0, "matmul_calls": 30, "matmul_flops": 6e9,
                           "other_aten_ms": 10.0, "other_aten_calls": 5,
                           "other_aten_top": [{"op": "embedding_dense_backward", "ms": 6.0, "calls": 1},
                                              {"op": "index", "ms": 3.0, "calls": 2},
                                              {"op": "cat", "ms": 1.0, "calls": 2}],
                           "kernel_ms": 5.0, "kernels": 40, "kernel_bytes": 50e6,
                           "own_ms": 5.0, "update_ms": 8.0, "timers_ms": 1.0, "rest_ms": 11.0}}


def test_the_section_renders_a_hand_written_row():
    results = {"meta": {"command": "bessemer bench gpt2", "plan": {"scale": "small"}, "host": {"cpu": "cpu"},
                        "matmul_peak": {"flops_per_s": 200e9, "n": 2048, "dtype": "float32", "device": "cpu"}},
               "rows": [_split_row(), {"model": "gpt2", "mode": "eager", "status": "ok", "error": None,
                                       "phase_errors": {}, "batch": 8, "seq": 128, "image": None,
                                       "step_s": {"median": 0.2, "spread": 0.01}, "first_step_cold_s": 0.1,
                                       "final_loss": 2.0, "losses": [2.0], "mfu": 0.25}]}
    section = report.step_split_section(results)
    assert section[1] == "## Where a step's time goes (bessemer)"
    # matmuls: 6 GFLOP in 60 ms = 100 GFLOP/s, half the peak; MFU if only they ran: 6e9 / 0.06 / 200e9;
    # kernels: 50 MB in 5 ms = 10 GB/s, half the copy bandwidth
    row = ("| gpt2 | 100.00 | 50.0% | 50.0% | 60.00 (60%) | 100.0 (50%) | 10.00 (10%) | "
           "embedding_dense_backward 6.00, index 3.00, cat 1.00 | 5.00 (5%) | 10.0 (50%) | 5.00 (5%) | "
           "8.00 (8%) | 1.00 (1%) | 11.00 (11%) |")
    assert section[-1] == row
    assert sum(1 for line in section if line.startswith("| gpt2 |")) == 1   # the eager row has no split
    page = report.markdown(results)
    assert row in page and "**Where a step's time goes**" in page
    # no row with a split, no section
    results["rows"][0].pop("step_split")
    assert report.step_split_section(results) == [] and "Where a step's time goes (bessemer)" not in \
        report.markdown(results)


def test_median_step_is_one_whole_step():
    """The page's row is the profiled step of median wall time, whole (its parts add up to
    its step_ms), not a median per part; an empty list is an error."""
    from bessemer.compiler.runtime.step_split import PARTS, median_step
    steps = []
    for i, ms in enumerate([30.0, 10.0, 50.0, 20.0, 40.0]):
        parts = dict.fromkeys(PARTS, 0.0)
        parts["matmul_ms"], parts["kernel_ms"] = ms * 0.75, ms * 0.25
        steps.append({"step_ms": ms, **parts, "id": i})
    m = median_step(steps)
    assert m["step_ms"] == 30.0 and m["id"] == 0 and m["profiled_steps"] == 5
    assert abs(sum(m[p] for p in PARTS) - m["step_ms"]) < 1e-9
    assert median_step(steps[:4])["step_ms"] == 20.0      # the lower middle of an even count
    with pytest.raises(ValueError):
        median_step([])
