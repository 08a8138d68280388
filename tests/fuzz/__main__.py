"""The program fuzzer from the command line (`make fuzz N=3000`).

    .venv/bin/python tests/fuzz --n 3000 [--seed S] [--batch 10] [--keep-going] [--no-shrink]
                                [--backend auto|cpp|triton]

Checks the programs of seeds S .. S+N-1 compiled against eager; on a failure it
prints the program, shrinks it and prints the minimal failing program as a test.
Exit status 1 when any program failed.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="tests/fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="how many programs (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="the first program's seed (default 0)")
    ap.add_argument("--batch", type=int, default=10, help="programs compiled together (default 10)")
    ap.add_argument("--keep-going", action="store_true", help="continue after a failure")
    ap.add_argument("--no-shrink", action="store_true", help="report failures without shrinking them")
    ap.add_argument("--shrink-seconds", type=float, default=600.0, help="time limit per shrink (default 600)")
    ap.add_argument("--cache-dir", default=None, help="kernel cache folder (default: a fresh temporary one)")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpp", "triton"],
                    help="kernel backend (triton on a CPU runs under TRITON_INTERPRET=1)")
    args = ap.parse_args(argv)
    for name in ("n", "batch"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.seed < 0:
        ap.error(f"--seed must be >= 0, got {args.seed}")

    warnings.filterwarnings("ignore", message="bessemer: .* has no lowering")
    if args.backend == "triton":
        import torch
        if not torch.cuda.is_available():
            os.environ.setdefault("TRITON_INTERPRET", "1")   # before triton is imported
    from progfuzz import Target
    from progfuzz_campaign import campaign
    target = Target(args.backend, args.cache_dir or tempfile.mkdtemp(prefix="bessemer-fuzz-"))
    s = campaign(args.seed, args.n, args.batch, target, args.keep_going, not args.no_shrink, args.shrink_seconds,
                 log=lambda m: print(m, flush=True))
    print(f"fuzz: {s.programs} programs (seeds {args.seed}..{args.seed + s.programs - 1}) in {s.batches} batches, "
          f"{s.seconds:.0f} s: {len(s.found)} failing", flush=True)
    for fd in s.found:
        print(f"  seed {fd.prog.seed}: {fd.failure.kind}")
    return 1 if s.found else 0


if __name__ == "__main__":
    sys.exit(main())
