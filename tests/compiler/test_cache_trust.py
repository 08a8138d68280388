"""A cache entry is loaded only where it and every folder above it (to the cache root) are
ours and writable by nobody else. Every kind of entry (a stored frame, a graph entry, a
kernel library with a matching checksum, a `.none` marker) is planted with a payload that
would create a file, under a folder of mode 0777 and under another owner (uid 65534; the
tests run as root): no payload runs, a warning names the path, and training equals eager."""
import hashlib
import json
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

from bessemer.compiler.capture import graph_cache

from bessemer.compiler.capture import precompile

WORKER = textwrap.dedent('''
    import copy, json, sys, warnings
    import torch
    import bessemer
    from bessemer.compiler.capture import graph_cache
    from bessemer.compiler.capture import precompile

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = torch.nn.Linear(8, 16), torch.nn.Linear(16, 4)

        def forward(self, x):
            return torch.tanh(self.fc2(torch.relu(self.fc1(x)))).sum()

    torch.manual_seed(0)
    model = Net()
    ref = copy.deepcopy(model)
    bessemer.compile(model, config=bessemer.TrainingCompilerConfig(cache_dir=sys.argv[1], fallback="error"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = torch.randn(4, 8)
        loss, ref_loss = model(x), ref(x)
        loss.backward()
        ref_loss.backward()
    ok = torch.allclose(loss, ref_loss) and all(
        torch.allclose(a.grad, b.grad, atol=1e-6) for a, b in zip(model.parameters(), ref.parameters()))
    print("RESULT", json.dumps({"equal": bool(ok), "compiled": len(model.forward._bessemer_frame.backend.bessemer.compiled),
                                "warnings": [str(w.message) for w in caught if "bessemer" in str(w.message)],
                                "frames": precompile.stats, "graphs": graph_cache.stats}))
''')


def run(tmp_path, cache) -> dict:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = dict(os.environ, BESSEMER_GRAPH_CACHE="1")
    env.pop("BESSEMER_DEBUG", None)
    p = subprocess.run([sys.executable, str(script), str(cache)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads([ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1][len("RESULT "):])
    assert out["equal"] and out["compiled"] >= 1, out
    return out


class _Payload:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _checksummed(fmt: bytes, content: bytes) -> bytes:
    return fmt + hashlib.sha256(content).hexdigest().encode() + content


def _plant(cache, marker, tmp_path) -> list:
    """Every entry of a filled cache replaced by one whose loading creates `marker`; returns
    the planted files."""
    payload = pickle.dumps(_Payload(marker))
    planted = []
    frames = [p for p in (cache / "frames").iterdir() if not p.name.endswith(".none")]
    for p in frames:
        p.write_bytes(_checksummed(precompile.FORMAT, payload))
        marker_file = p.with_suffix(".none")      # would turn the compiler off for this model
        marker_file.write_text("planted\n")
        planted += [p, marker_file]
    for p in (cache / "graphs").glob("*/entry"):
        p.write_bytes(_checksummed(graph_cache.FORMAT, payload))
        planted.append(p)
    lib_src = tmp_path / "payload.c"
    lib_src.write_text('#include <stdio.h>\n__attribute__((constructor)) static void run(void) '
                       f'{{ FILE *f = fopen("{marker}", "w"); if (f) fclose(f); }}\n')
    for so in (cache / "kernels").glob("*/*.so"):
        subprocess.run(["gcc", "-shared", "-fPIC", str(lib_src), "-o", str(so)], check=True)
        so.with_suffix(".sha256").write_text(hashlib.sha256(so.read_bytes()).hexdigest())
        planted.append(so)
    assert frames and len(planted) >= 4, planted
    return planted


@pytest.mark.parametrize("how", ["open folder", "another owner"])
def test_a_planted_entry_is_refused_with_a_warning(tmp_path, how):
    if os.getuid() != 0 and how == "another owner":
        pytest.skip("chown to another user needs root")
    cache = tmp_path / "cache"
    first = run(tmp_path, cache)
    assert first["frames"]["saved"] == 1, first
    marker = tmp_path / "payload-ran"
    planted = _plant(cache, marker, tmp_path)
    for p in planted:
        if how == "open folder":
            os.chmod(p.parent, 0o777)
        else:
            os.chown(p, 65534, 65534)
            os.chown(p.parent, 65534, 65534)
    second = run(tmp_path, cache)
    assert not marker.exists(), "a planted entry was loaded"
    text = "\n".join(second["warnings"])
    for p in planted:
        # each planted file is named, or the folder it sits in
        assert str(p) in text or str(p.parent) in text, (p, second["warnings"])
    assert second["frames"]["loaded"] == 0 and second["graphs"]["hits"] == 0, second
