"""Host memory kept between steps (compiler/runtime/hostmem.py): after bessemer.compile or
bessemer.compile_step, a large buffer freed in one step is reused by the next without the
operating system faulting its pages in again; with retain_host_memory=False malloc keeps its
defaults. Each case runs in a fresh process, since the setting is process-wide."""
import subprocess
import sys
import textwrap

import pytest

import bessemer
from bessemer.compiler.runtime import hostmem

pytestmark = pytest.mark.skipif(hostmem._glibc() is None, reason="glibc's malloc only")

# Allocate, write and free a 48 MiB tensor a few times (a step's activation, say) after
# compiling and running a small model, and report the minor page faults of the last rounds.
_SCRIPT = textwrap.dedent("""
    import resource, sys, torch, bessemer
    from bessemer.compiler.runtime import hostmem
    retain = sys.argv[1] == "1"
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU())
    if sys.argv[2] == "compile":
        bessemer.compile(model, fallback="error", graph_cache=False, retain_host_memory=retain)
        model(torch.randn(4, 16)).sum().backward()
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        step = bessemer.compile_step(model, opt, lambda m, x: m(x).sum(), fallback="error",
                                     graph_cache=False, retain_host_memory=retain)
        step(torch.randn(4, 16))
    def round_():
        t = torch.empty(12 << 20)   # 48 MiB
        t.fill_(1.0)
        del t
    for _ in range(8):   # malloc's heap settles (aligned allocations split its free blocks)
        round_()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        round_()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    print(hostmem.retained(), faults)
""")


def _run(retain: bool, entry: str) -> tuple[bool, int]:
    out = subprocess.run([sys.executable, "-c", _SCRIPT, "1" if retain else "0", entry],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    retained, faults = out.stdout.split()[-2:]
    return retained == "True", int(faults)


@pytest.mark.parametrize("entry", ["compile", "compile_step"])
def test_freed_memory_is_reused_without_page_faults(entry):
    pages = 5 * (48 << 20) // 4096   # what five fresh buffers fault in: 61,440 pages
    retained, faults = _run(True, entry)
    assert retained
    assert faults < pages // 50, faults
    retained, faults = _run(False, entry)
    assert not retained
    assert faults > pages // 2, faults   # the default: every round faults its pages again


def test_config_field_is_checked():
    with pytest.raises(ValueError, match="TrainingCompilerConfig.retain_host_memory must be True or False"):
        bessemer.TrainingCompilerConfig(retain_host_memory="yes")
