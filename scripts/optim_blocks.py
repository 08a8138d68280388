"""The compiled Adam update's block size, measured in training: steps of one zoo model's
optimizer, one copy per block size, interleaved.

    .venv/bin/python scripts/optim_blocks.py MODEL [--blocks 256,512,2048,16384] [--rounds 20]

Each copy of the model trains a few steps with AdamW (bessemer.compile with optimizer=),
so that its optimizer state holds what training leaves there (an embedding's untouched rows
keep exp_avg_sq at 0), then the copies' `opt.step()` calls are timed in turns. A block size
is the template's kBlock in elements. Two more copies use blocks of 512: one leaves the
MKL thread count of the update's threads as torch.set_num_threads left it (MKL then opens a
nested parallel region in every sqrt call), one computes std::sqrt (not eager's bits where
torch's sqrt is MKL's: what MKL's sqrt costs, for reference).
"""
from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--blocks", default="256,512,2048,16384")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--scale", default="small")
    ap.add_argument("--threads", type=int, default=torch.get_num_threads(),
                    help="torch.set_num_threads, as `bessemer bench` calls it")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)

    import bessemer
    import bessemer.compiler.optim as optim
    from bessemer import zoo
    from bessemer.bench.runner import make_optimizer
    from bessemer.compiler.codegen import optim_cpp

    w = zoo.build(a.model, a.scale, seed=0)
    training = zoo.spec(a.model).training
    mkl_sqrt, mkl_threads = optim.torch_sqrt_impl, optim.mkl_threads_local
    current = ["mkl"]
    optim.torch_sqrt_impl = lambda dtype: None if current[0] == "ieee" else mkl_sqrt(dtype)
    optim.mkl_threads_local = lambda: None if current[0] == "mkl-nested" else mkl_threads()
    prelude = optim_cpp._PRELUDE
    marker = "kBlock = 512;"
    assert marker in prelude
    variants = [(int(b), "mkl") for b in a.blocks.split(",")] + [(0, "mkl-nested"), (0, "ieee")]
    opts = {}
    for block, sqrt in variants:
        optim_cpp._PRELUDE = prelude.replace(marker, f"kBlock = {block or 512};")
        current[0] = sqrt
        model = copy.deepcopy(w.model)
        opt = make_optimizer(training, model)
        bessemer.compile(model, optimizer=opt)
        for i in range(4):
            opt.zero_grad(set_to_none=True)
            w.loss_fn(model, w.make_batch(i % 4)).backward()
            opt.step()
        opts[(block, sqrt)] = opt
    optim_cpp._PRELUDE = prelude
    times = {k: [] for k in opts}
    for _ in range(a.rounds):
        for (block, sqrt), opt in opts.items():
            current[0] = sqrt
            t0 = time.perf_counter()
            opt.step()
            times[(block, sqrt)].append(time.perf_counter() - t0)
    n = sum(p.numel() for p in w.model.parameters())
    print(f"{a.model} ({a.scale}, {n / 1e6:.2f}M parameters, {torch.get_num_threads()} threads): "
          f"opt.step() ms, median of {a.rounds} interleaved rounds")
    for (block, sqrt), t in times.items():
        what = {"mkl": f"MKL sqrt, blocks of {block}",
                "mkl-nested": "MKL sqrt, MKL threads as set",
                "ieee": "IEEE sqrt, blocks of 512"}[sqrt]
        print(f"  {what:30s} {statistics.median(t) * 1e3:7.2f}")


if __name__ == "__main__":
    main()
