"""The measurements: FLOPs, step statistics, peak memory."""
import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from bessemer.bench import measure


def test_flops_of_a_matmul_forward_and_backward():
    a = torch.randn(32, 64, requires_grad=True)
    b = torch.randn(64, 16, requires_grad=True)
    flops = measure.count_flops(lambda: (a @ b).sum().backward())
    assert flops == 3 * 2 * 32 * 64 * 16  # forward, and the two gradient matmuls


def test_cpu_attention_is_counted():
    q, k, v = (torch.randn(2, 4, 16, 8, requires_grad=True) for _ in range(3))
    fwd = measure.count_flops(lambda: F.scaled_dot_product_attention(q, k, v))
    assert fwd == 2 * (2 * 2 * 4 * 16 * 16 * 8)


def _conv_step_flops(conv, x):
    return measure.count_flops(lambda: conv(x).sum().backward())


@pytest.mark.parametrize("groups, c_in, c_out", [(8, 8, 8), (4, 8, 12)], ids=["depthwise", "grouped"])
def test_grouped_conv_forward_and_backward_by_hand(groups, c_in, c_out):
    """2 * N * out_h * out_w * C_out * (C_in / groups) * kh * kw for the forward, the input's
    gradient and the weight's gradient each (torch's own counter has the weight's `groups` times)."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(c_in, c_out, (3, 5), stride=(2, 1), padding=(1, 2), groups=groups)
    x = torch.randn(3, c_in, 11, 9, requires_grad=True)
    out_h, out_w = conv(x).shape[-2:]
    assert (out_h, out_w) == (6, 9)
    one = 2 * 3 * out_h * out_w * c_out * (c_in // groups) * 3 * 5
    assert measure.count_flops(lambda: conv(x)) == one
    assert _conv_step_flops(conv, x) == 3 * one
    x.requires_grad_(False)                        # the first layer: no input gradient
    assert _conv_step_flops(conv, x) == 2 * one
    conv.weight.requires_grad_(False)              # a frozen layer: the input's gradient only
    x.requires_grad_(True)
    assert _conv_step_flops(conv, x) == 2 * one


def test_grouped_transposed_conv_by_hand():
    """A transposed convolution's work is per input element: 2 * N * in_h * in_w * C_in * (C_out / groups) * k."""
    conv = torch.nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, groups=2)
    x = torch.randn(2, 6, 5, 5, requires_grad=True)
    one = 2 * 2 * 5 * 5 * 6 * (4 // 2) * 3 * 3
    assert _conv_step_flops(conv, x) == 3 * one


def test_ungrouped_conv_count_is_torchs():
    """Without groups the corrected formula counts what torch's own does."""
    conv = torch.nn.Conv2d(6, 10, 3, padding=1)
    x = torch.randn(2, 6, 8, 8, requires_grad=True)
    stock = FlopCounterMode(display=False)
    with stock:
        conv(x).sum().backward()
    assert _conv_step_flops(conv, x) == stock.get_total_flops() == 3 * 2 * 2 * 8 * 8 * 10 * 6 * 9


def test_summary_median_and_spread():
    s = measure.summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s["median"] == 3.0 and s["min"] == 1.0 and s["max"] == 100.0 and s["n"] == 5
    assert s["spread"] == (s["p75"] - s["p25"]) / 3.0


def test_peak_memory_counts_what_the_step_allocates_and_what_existed():
    w = torch.zeros(1024, 256)  # 1 MiB, existing before recording
    kept = []
    tracker = measure.PeakMemory(torch.device("cpu"), [w])
    with tracker:
        kept.append(torch.ones(512, 256))  # 0.5 MiB allocated before the step and kept
        with tracker.measured_step():
            tmp = torch.ones(2048, 256)  # 2 MiB, freed inside the step
            del tmp
    mib = tracker.peak_bytes / 2 ** 20
    assert 3.5 <= mib < 3.6


def test_matmul_peak_is_positive():
    p = measure.matmul_peak(torch.device("cpu"), torch.float32, seconds=0.05)
    assert p["flops_per_s"] > 1e8 and p["n"] == 2048


def test_bf16_peak_probe_is_quick_where_bf16_is_emulated():
    # A CPU that converts every bf16 element would spend minutes on 2048 products.
    p = measure.matmul_peak(torch.device("cpu"), torch.bfloat16, seconds=0.05)
    assert p["flops_per_s"] > 0
    assert p["n"] == (measure.EMULATED_SIDE if measure._emulated(torch.bfloat16) else 2048)


def test_contention_is_a_share_of_the_cores():
    import time
    with measure.Contention() as c:
        t = time.perf_counter()
        while time.perf_counter() - t < 0.3:
            pass
    assert c.share is None or 0.0 <= c.share <= 1.0


class _TokenZero(torch.nn.Module):
    """Two linear layers over every token; the loss reads token 0 (or every token)."""

    def __init__(self, first_only: bool):
        super().__init__()
        self.first_only = first_only
        self.a, self.b = torch.nn.Linear(8, 16), torch.nn.Linear(16, 8)

    def forward(self, x):
        h = self.b(torch.relu(self.a(x)))
        return (h[:, 0] if self.first_only else h).square().sum()


def test_needed_flops_leave_out_the_rows_nothing_reads():
    x = torch.randn(2, 5, 8)
    for first_only, fraction in ((True, 1 / 5), (False, 1.0)):
        model = _TokenZero(first_only)
        eager = measure.count_flops(lambda: model(x).backward())
        model.zero_grad(set_to_none=True)
        needed = measure.count_needed_flops(model, lambda m: m(x), eager)
        # every product of forward and backward over one token of five, or over all five
        assert eager > 0
        assert needed == pytest.approx(eager * fraction)
