"""The memory plan (passes/memory.py): the order it picks, in-place outputs, storage
reuse, and the peak it plans against the peak measured through torch's allocator."""
from __future__ import annotations

import torch
from torch._C._profiler import _EventType

from bessemer.compiler.capture.backend import make_backend
from bessemer.compiler.ir.graph import Kind
from bessemer.config import TrainingCompilerConfig


def _compiled(fn, tmp_path):
    # ATen's products: a product on oneDNN (passes/gemm_choice.py) also takes a scratchpad of
    # its own through torch's allocator during the call, which no plan counts
    cfg = TrainingCompilerConfig(cache_dir=str(tmp_path / "cache"), fallback="error", gemm="aten")
    backend = make_backend(cfg)
    return torch.compile(fn, backend=backend, dynamic=False), backend.bessemer


def _measured_peak(run, inside: str = "") -> int:
    """Most bytes allocated while `run()` runs (within profiler events named `inside...`,
    when given) and live at once, from torch's CPU allocator events."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        run()
    events = []

    def walk(e, within):
        within = within or (inside and inside in e.name)
        if e.tag == _EventType.Allocation and e.extra_fields.device.type == "cpu" and (within or not inside):
            events.append((e.start_time_ns, int(e.extra_fields.alloc_size)))
        for c in e.children:
            walk(c, within)

    for root in prof.profiler.kineto_results.experimental_event_tree():
        walk(root, False)
    live = peak = 0
    for _, size in sorted(events):
        live += size
        peak = max(peak, live)
    return peak


def _check_peak(cg, args):
    cg.fn(list(args))                       # first call: nothing lazy left for the measured one
    measured = _measured_peak(lambda: cg.fn(list(args)))
    assert measured == cg.memory.peak_bytes, (measured, cg.memory.format())


def test_order_frees_each_branch_before_the_next(tmp_path):
    """Two matmuls, each reduced to a small vector: run each reduction right after its
    matmul, so one big buffer is live at a time, not both."""
    def f(x, w1, w2):
        return (x @ w1).relu().sum(1), (x @ w2).exp().sum(0)

    x, w1, w2 = torch.randn(256, 64), torch.randn(64, 1024), torch.randn(64, 512)
    g, be = _compiled(f, tmp_path)
    for a, b in zip(g(x, w1, w2), f(x, w1, w2)):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-3)
    (cg,) = be.compiled
    both = (256 * 1024 + 256 * 512) * 4
    assert cg.memory.peak_bytes < both, cg.memory.format()
    assert cg.memory.peak_bytes <= 256 * 1024 * 4 + 256 * 4 + 512 * 4
    _check_peak(cg, [x, w1, w2])


def test_output_written_in_place_over_a_dying_input(tmp_path):
    def f(x, w, w2):
        return torch.sigmoid((x @ w) * 2 + 1) @ w2

    x, w, w2 = torch.randn(128, 64), torch.randn(64, 256), torch.randn(256, 32)
    g, be = _compiled(f, tmp_path)
    torch.testing.assert_close(g(x, w, w2), f(x, w, w2), rtol=1e-4, atol=1e-4)
    (cg,) = be.compiled
    assert cg.memory.inplace, cg.memory.format()
    (out, donor), = cg.memory.inplace.items()
    assert donor.kind == Kind.EXTERN       # the first matmul's output, dead after the kernel
    _check_peak(cg, [x, w, w2])


def test_backward_plan_is_met_and_gradients_match(tmp_path):
    """A layer's forward and backward: gradients as eager's, and the backward allocating
    what its plan says (AOTAutograd's own bookkeeping around
    it: a few bytes)."""
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.LayerNorm(256),
                            torch.nn.Linear(256, 64))
    ref = [p.detach().clone() for p in m.parameters()]
    g, be = _compiled(m, tmp_path)
    x = torch.randn(128, 64)
    g(x).square().mean().backward()
    got = [p.grad.clone() for p in m.parameters()]
    with torch.no_grad():
        for p, r in zip(m.parameters(), ref):
            p.grad = None
            p.copy_(r)
    m(x).square().mean().backward()
    for a, p in zip(got, m.parameters()):
        torch.testing.assert_close(a, p.grad, rtol=1e-4, atol=1e-6)
    fw, bw = be.compiled
    loss = g(x).square().mean()
    measured = _measured_peak(loss.backward, inside="CompiledFunctionBackward")
    assert bw.memory.peak_bytes <= measured <= bw.memory.peak_bytes + 256, (measured, bw.memory.format())


def test_cross_entropy_writes_only_the_gradient(tmp_path):
    """A cross-entropy over a wide row: the forward writes no log-softmax (the gather reads
    the logits, compiler/partition/joint.py; two row statistics are kept), and the gradient is one
    kernel that recomputes the softmax and the per-row one-hot scale where it reads them
    (fuse.py: a broadcast costs a load), so the backward allocates nothing but the gradient."""
    f, be = _compiled(lambda x, t: torch.nn.functional.cross_entropy(x, t), tmp_path)
    x = torch.randn(64, 2048, requires_grad=True)
    t = torch.randint(0, 2048, (64,))
    x_ref = x.detach().clone().requires_grad_()
    f(x, t).backward()
    torch.nn.functional.cross_entropy(x_ref, t).backward()
    torch.testing.assert_close(x.grad, x_ref.grad)
    fw, bw = be.compiled
    assert fw.memory.peak_bytes < x.numel() * 4 // 8, (fw.schedule_text, fw.memory.format())
    assert bw.n_kernels == 1, bw.schedule_text
    assert bw.memory.peak_bytes == x.numel() * 4, (bw.schedule_text, bw.memory.format())


def _allocated_in_backward(run) -> int:
    return _measured_peak(run, inside="CompiledFunctionBackward")


def test_language_model_loss_gradient_is_written_over_logits_nobody_holds(tmp_path):
    """A graph returning a loss and its logits saves the logits (returned anyway) for the
    loss's backward. When the step has dropped them, the backward writes the logits'
    gradient over them; when the caller still holds them, it leaves them as they were and
    writes the gradient elsewhere. Both give eager's gradients."""
    torch.manual_seed(0)
    w = torch.randn(32, 2048, requires_grad=True)
    w_ref = w.detach().clone().requires_grad_()

    def lm(x, y, w):
        logits = x @ w
        return torch.nn.functional.cross_entropy(logits, y), logits

    f, be = _compiled(lm, tmp_path)
    x, y = torch.randn(256, 32), torch.randint(0, 2048, (256,))
    logits_bytes = 256 * 2048 * 4
    lm(x, y, w_ref)[0].backward()

    loss, logits = f(x, y, w)
    (rep,) = be.partitions
    kept = logits.detach().clone()
    held = _allocated_in_backward(lambda: loss.backward())
    torch.testing.assert_close(logits, kept, rtol=0, atol=0)       # untouched: the caller holds them
    torch.testing.assert_close(w.grad, w_ref.grad)
    assert held >= logits_bytes, held
    del loss, logits

    w.grad = None
    dropped = _allocated_in_backward(lambda: f(x, y, w)[0].backward())
    torch.testing.assert_close(w.grad, w_ref.grad)
    assert dropped < logits_bytes // 2, dropped
    # the forward saves the logits, not a log-softmax it would have written for the backward
    big = [s for s in rep.saved if s.nbytes >= logits_bytes]
    assert [s.op for s in big] == ["mm"], rep.format()
