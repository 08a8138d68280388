"""Compile generated Triton kernels for a GPU architecture without a GPU.

Triton's compiler (Python front end, MLIR, LLVM, ptxas) runs on the CPU; only a
launch needs a device. This module compiles kernels of generated modules down to
a cubin for a chosen NVIDIA architecture (default sm_90, Hopper), so code paths
that Triton's interpreter accepts but the real compiler rejects (types, shapes,
constexpr use) are caught on a machine with no GPU:

    python -m bessemer.compiler.codegen.triton_aot MANIFEST.json [ARCH] [--all-configs]

MANIFEST.json lists {"path": module.py, "kernels": [{"name", "signature", "configs"}]}
entries (see `manifest_entry`). It must run in a process where TRITON_INTERPRET is
unset: the kernels must be real JIT functions. Prints one line per failure and
exits 1 if any kernel failed.
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys

import torch

_SIG = {
    torch.float32: "*fp32", torch.float64: "*fp64", torch.bfloat16: "*bf16", torch.float16: "*fp16",
    torch.int64: "*i64", torch.int32: "*i32", torch.int16: "*i16", torch.int8: "*i8", torch.uint8: "*u8",
    torch.bool: "*i1",
}


def manifest_entry(module_path: str, kernels) -> dict:
    """What the compiler needs of one generated module: per kernel, the pointer types
    of its parameters and the launch configurations it may be run with."""
    from bessemer.compiler.codegen.triton_launch import candidates
    out, seen = [], set()
    for k in kernels:
        if k.meta.fn_name in seen:   # identical kernels are one function
            continue
        seen.add(k.meta.fn_name)
        sig = [_SIG[a.dtype] for a in k.args] + (["*fp32"] if k.meta.split else [])
        cfgs = [c.as_list() for c in candidates(k.meta)]
        out.append({"name": k.meta.fn_name, "signature": sig, "configs": cfgs})
        if k.meta.split:   # the split reduction's second function
            out.append({"name": k.meta.fn_name + "_fin", "signature": sig, "configs": cfgs})
    return {"path": module_path, "kernels": out}


def compile_module(entry: dict, arch: int = 90, all_configs: bool = False) -> list[str]:
    """Compile each kernel of one module; the failures, one line each."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    if triton.knobs.runtime.interpret:
        raise RuntimeError("unset TRITON_INTERPRET: interpreted kernels cannot be compiled")
    name = "bessemer_aot_" + os.path.basename(entry["path"]).replace(".py", "")
    spec = importlib.util.spec_from_file_location(name, entry["path"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    target = GPUTarget("cuda", arch, 32)
    failures = []
    for k in entry["kernels"]:
        fn = getattr(mod, k["name"])
        params = fn.arg_names
        for xb, rb, nw in (k["configs"] if all_configs else k["configs"][:1]):
            sig = dict(zip(params, k["signature"]))
            sig.update(XBLOCK="constexpr", RBLOCK="constexpr")
            src = ASTSource(fn=fn, signature=sig, constexprs={"XBLOCK": xb, "RBLOCK": rb})
            try:
                triton.compile(src, target=target, options={"num_warps": nw})
            except Exception as e:  # noqa: BLE001 - every failure is reported
                first = (str(e).strip().splitlines() or [type(e).__name__])
                failures.append(f"{entry['path']}:{k['name']} XBLOCK={xb} RBLOCK={rb}: "
                                f"{type(e).__name__}: {' | '.join(first[-3:])}")
    return failures


def check_graphs(graphs, arch: int = 90, all_configs: bool = False) -> tuple[bool, str]:
    """Compile the Triton kernels of CompiledGraphs for sm_<arch> in a fresh process
    (with the interpreter off); (all compiled, the compiler's report)."""
    import subprocess
    import tempfile
    entries, seen = [], set()
    for cg in graphs:
        if cg.backend == "triton" and cg.kernels and cg.artifact not in seen:
            seen.add(cg.artifact)
            entries.append(manifest_entry(cg.artifact, cg.kernels))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(entries, f)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    args = [sys.executable, "-m", "bessemer.compiler.codegen.triton_aot", f.name, str(arch)]
    if all_configs:
        args.append("--all-configs")
    try:
        p = subprocess.run(args, capture_output=True, text=True, env=env)
    finally:
        os.unlink(f.name)
    return p.returncode == 0, (p.stdout + p.stderr).strip()


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    all_configs = "--all-configs" in argv
    argv = [a for a in argv if a != "--all-configs"]
    with open(argv[0]) as f:
        manifest = json.load(f)
    arch = int(argv[1]) if len(argv) > 1 else 90
    failures = []
    for entry in manifest:
        failures += compile_module(entry, arch, all_configs)
    for line in failures:
        print(line)
    n = sum(len(e["kernels"]) for e in manifest)
    print(f"{n - len({f.split(' XBLOCK')[0] for f in failures})}/{n} kernels compiled for sm_{arch}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
