"""`bessemer bench optim`: the optimizer step alone, each way bessemer or torch can run it.

    bessemer bench optim                                   gpt2, bert-base-uncased, llama at scale small
    bessemer bench optim gpt2 --scale tiny --rounds 3 --steps 2 --modes eager,template,ir   (a smoke run)
    bessemer bench optim --device cuda --modes eager,fused,ir,inductor                       (on a GPU)

For the parameters of each zoo model (bessemer.zoo, built as `bessemer bench` builds
them), with a fixed random gradient on every parameter, it times `opt.step()` of

  eager      torch's AdamW / SGD with foreach=True (one multi-tensor op per group)
  fused      torch's AdamW / SGD with fused=True (torch's own fused kernel, CPU or CUDA)
  template   bessemer's C++ template kernel (compile_optimizer(via="template"); CPU only)
  ir         the update compiled through bessemer's IR (compile_optimizer(via="ir"))
  inductor   torch.compile(opt.step), as PyTorch's "compiling the optimizer" recipe does

each on its own copy of the same parameters. The modes are measured side by side:
every round times `--steps` steps of each mode in turn (the order rotating from round to
round), and the table gives each mode's median over the rounds, in µs per step, and its
time as a fraction of eager's. Before timing, one step of every mode from the same
parameters is checked against eager's (to float rounding) so that a table never shows a
wrong update's speed. Optimizers: AdamW (lr 1e-4) and SGD with momentum 0.9 (lr 1e-2).

This is what decides which path compiles a CPU step (bessemer/compiler/optim.py's
docstring); run it on a quiet machine.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from typing import Callable, Optional

import torch

from .. import zoo
from ..cliargs import OneLineParser, positive

PROG = "bessemer bench optim"
DEFAULT_MODELS = ("gpt2", "bert-base-uncased", "llama")
MODES = ("eager", "fused", "template", "ir", "inductor")
OPTIMIZERS = {
    "adamw": lambda params, **kw: torch.optim.AdamW(params, lr=1e-4, **kw),
    "sgd": lambda params, **kw: torch.optim.SGD(params, lr=1e-2, momentum=0.9, **kw),
}


class UsageError(ValueError):
    pass


def _csv(allowed: tuple) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        items = [s.strip() for s in text.split(",") if s.strip()]
        bad = [s for s in items if s not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(allowed)}, got {text!r}")
        return items
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Time opt.step() eager, compiled by bessemer's template and "
                                             "through its IR, and under torch.compile.")
    p.add_argument("models", nargs="*", default=list(DEFAULT_MODELS), help="zoo models (default: %(default)s)")
    p.add_argument("--scale", default="small", choices=zoo.SCALES)
    p.add_argument("--modes", type=_csv(MODES), default=list(MODES), help="comma-separated: " + ",".join(MODES))
    p.add_argument("--optimizers", type=_csv(tuple(OPTIMIZERS)), default=list(OPTIMIZERS),
                   help="comma-separated: " + ",".join(OPTIMIZERS))
    p.add_argument("--rounds", type=positive, default=21, help="interleaved rounds; the median is reported")
    p.add_argument("--steps", type=positive, default=10, help="steps of each mode timed per round")
    p.add_argument("--warmup", type=positive, default=3, help="untimed steps of each mode first")
    p.add_argument("--device", default="cpu")
    return p


# -- one mode: its own copy of the parameters and its step ---------------------------------------

class Mode:
    def __init__(self, name: str, params: list[torch.Tensor], grads: list[torch.Tensor], optimizer: str,
                 cache_dir: Optional[str]):
        from bessemer.compiler.optim import compile_optimizer, fused_step_of
        from bessemer.config import TrainingCompilerConfig
        self.name = name
        self.params = [torch.nn.Parameter(p.detach().clone()) for p in params]
        for p, g in zip(self.params, grads):
            p.grad = g
        make = OPTIMIZERS[optimizer]
        kw = {"eager": {"foreach": True}, "fused": {"fused": True}}.get(name, {"foreach": False})
        self.opt = make(self.params, **kw)
        self.step: Callable[[], None] = self.opt.step
        if name in ("template", "ir"):
            cfg = TrainingCompilerConfig(fallback="error", **({"cache_dir": cache_dir} if cache_dir else {}))
            compile_optimizer(self.opt, cfg, via=name)
            self.runner = fused_step_of(self.opt)
            self.step = self.opt.step          # the compiled step replaces it on the instance
        elif name == "inductor":
            opt = self.opt

            @torch.compile(fullgraph=False)
            def step():
                opt.step()
            self.step = step

    def check(self) -> None:
        """A compiled mode really ran compiled (no silent eager fallback)."""
        if self.name in ("template", "ir"):
            r = self.runner
            if r.eager_groups or not r.fused_groups or (self.name == "ir") != bool(r.ir_groups):
                raise RuntimeError(f"{self.name}: the step did not run the {self.name} path "
                                   f"(compiled groups {r.fused_groups}, through the IR {r.ir_groups}, "
                                   f"eager {r.eager_groups})")
        elif self.name == "inductor":
            from torch._dynamo.utils import counters
            if not counters["stats"]["unique_graphs"]:
                raise RuntimeError("inductor: torch.compile compiled no graph of the step")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _agree(ref: Mode, other: Mode) -> None:
    for i, (a, b) in enumerate(zip(ref.params, other.params)):
        tol = dict(rtol=1e-4, atol=1e-6) if a.dtype == torch.float32 else {}
        try:
            torch.testing.assert_close(b.detach(), a.detach(), **tol)
        except AssertionError as e:
            raise RuntimeError(f"{other.name}: parameter {i} after one step differs from eager's: "
                               f"{str(e).splitlines()[1] if len(str(e).splitlines()) > 1 else e}") from None


def measure(model_name: str, scale: str, optimizer: str, modes: list[str], rounds: int, steps: int,
            warmup: int, device: torch.device, cache_dir: Optional[str] = None) -> dict:
    """µs per step of each mode (median of interleaved rounds) for one model's parameters."""
    # each model's torch.compile starts from an empty Dynamo cache: the step closures of
    # every model share one code object, and its cache entries would pile up past the
    # recompile limit (after which Dynamo runs the step eagerly)
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()
    w = zoo.build(model_name, scale, seed=0, device=device)
    params = [p for p in w.model.parameters() if p.requires_grad]
    gen = torch.Generator(device=device).manual_seed(1)
    grads = [torch.randn(p.shape, generator=gen, device=device, dtype=p.dtype) * 1e-2 for p in params]
    del w
    built = {m: Mode(m, params, grads, optimizer, cache_dir) for m in ["eager"] + [m for m in modes if m != "eager"]}
    # every step in the grad mode a training loop calls opt.step() in (grad enabled; the
    # optimizer turns it off inside): a step under no_grad first would make torch.compile's
    # guards fail on the grad mode and recompile inside the timed rounds
    for m in built.values():         # one step from the same start: the compiled ones agree with eager
        m.step()
        m.check()
    for m in built.values():
        if m.name != "eager":
            _agree(built["eager"], m)
    for m in built.values():
        for _ in range(warmup):
            m.step()
    _sync(device)
    order = [built[m] for m in modes]
    times: dict[str, list[float]] = {m.name: [] for m in order}
    for r in range(rounds):
        k = r % len(order)
        for m in order[k:] + order[:k]:
            _sync(device)
            t0 = time.perf_counter()
            for _ in range(steps):
                m.step()
            _sync(device)
            times[m.name].append((time.perf_counter() - t0) / steps * 1e6)
    for m in order:
        m.check()
    return {"model": model_name, "scale": scale, "optimizer": optimizer, "tensors": len(params),
            "elements": sum(p.numel() for p in params),
            "us": {name: statistics.median(ts) for name, ts in times.items()}}


def table(results: list[dict], modes: list[str]) -> str:
    head = "| model | optimizer | tensors | elements | " + " | ".join(f"{m} µs/step (× eager)" for m in modes) + " |"
    lines = [head, "|" + "---|" * (4 + len(modes))]
    for r in results:
        base = r["us"].get("eager")
        cells = []
        for m in modes:
            us = r["us"][m]
            cells.append(f"{us:.0f}" + (f" ({us / base:.2f})" if base and m != "eager" else ""))
        lines.append(f"| {r['model']} ({r['scale']}) | {r['optimizer']} | {r['tensors']} | "
                     f"{r['elements'] / 1e6:.2f}M | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        for m in args.models:
            zoo.spec(m)
        device = torch.device(args.device)
        if device.type != "cpu" and "template" in args.modes:
            raise UsageError("the template mode is CPU only; pass --modes without it for a GPU")
    except (ValueError, RuntimeError) as e:     # bad arguments, an unknown model: one line
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # torch.compile's and HF's notices; failures raise
        for model in args.models:
            for optimizer in args.optimizers:
                print(f"{PROG}: {model} {optimizer} ...", file=sys.stderr, flush=True)
                results.append(measure(model, args.scale, optimizer, args.modes, args.rounds, args.steps,
                                       args.warmup, device))
    print(f"opt.step() µs per step, median of {args.rounds} interleaved rounds of {args.steps} steps "
          f"({torch.get_num_threads()} threads, {device}); (×): time / eager's (foreach)\n")
    print(table(results, args.modes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
