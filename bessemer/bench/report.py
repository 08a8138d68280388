"""Rendering benchmark results: the terminal table, results.md / the tested-models
page, the chart, and the targets the compiler is steered by.

Everything here reads the results dictionary (the content of results.json) and
nothing else, so a page can be re-rendered from a saved run.
"""
from __future__ import annotations

import math
from typing import Optional

from ..fsutil import atomic_write_text

MODE_ORDER = ("eager", "inductor", "bessemer")
# A row whose steps were timed while other processes used more than this share of
# the cores is marked: its step time says more about them than about the mode.
CONTENDED_SHARE = 0.10
CONTENDED_MARK = "†"
# A compiling row that ran part of the model eagerly (see fallbacks.py).
EAGER_MARK = "‡"
# The compiler's targets: a warm start (the caches full) under 2 s, a cold compile at most
# a quarter of Inductor's, no model slower than eager, and over the whole run a geometric-mean
# speed-up of at least 1.20x and at least Inductor's.
WARM_START_TARGET_S = 2.0
COLD_COMPILE_TARGET_RATIO = 1 / 4
GEOMEAN_TARGET = 1.20


# -- numbers ------------------------------------------------------------------------
def speedups(results: dict) -> None:
    """Fill in each row's speed-up over the eager row of the same model."""
    eager = {r["model"]: r for r in results["rows"] if r["mode"] == "eager" and r["status"] == "ok"}
    for r in results["rows"]:
        ref = eager.get(r["model"])
        ok = r["status"] == "ok" and ref is not None
        r["speedup"] = ref["step_s"]["median"] / r["step_s"]["median"] if ok else None


def ran_eagerly(r: dict) -> bool:
    """The row's mode left part of the model eager (a graph or an optimizer update):
    its time is not the compiler's, so it does not count as compiled."""
    return bool(r.get("fallbacks"))


def geomean_speedups(results: dict) -> dict:
    """Per mode: the geometric mean of the speed-ups over eager, and over how many models
    (rows that ran partly eagerly are left out)."""
    out = {}
    for mode in _modes(results):
        vals = [r["speedup"] for r in results["rows"]
                if r["mode"] == mode and r.get("speedup") and not ran_eagerly(r)]
        if vals:
            out[mode] = {"geomean": math.exp(sum(math.log(v) for v in vals) / len(vals)), "models": len(vals)}
    return out


def targets(results: dict) -> list[dict]:
    """The compiler's targets, checked per model where the rows to check them exist."""
    rows = {(r["model"], r["mode"]): r for r in results["rows"]}
    out = []
    for model in _models(results):
        b, e, i = rows.get((model, "bessemer")), rows.get((model, "eager")), rows.get((model, "inductor"))
        if b is None:
            continue
        ok_b = b["status"] == "ok"
        if ok_b:
            out.append({"model": model, "target": "bessemer compiles every graph and update",
                        "met": not ran_eagerly(b), "value": _fallback_count(b)})
        if e is not None and e["status"] == "ok":
            sp = b.get("speedup")
            out.append({"model": model, "target": "bessemer at least as fast as eager",
                        "met": bool(ok_b and sp and sp >= 1 and not ran_eagerly(b)),
                        "value": (f"{sp:.2f}x" + (", ran partly eagerly" if ran_eagerly(b) else "")) if sp
                        else "error"})
        if i is not None and i["status"] == "ok" and i.get("first_step_cold_s"):
            bc, ic = b.get("first_step_cold_s"), i["first_step_cold_s"]
            out.append({"model": model, "target": "bessemer cold compile <= 1/4 of Inductor's",
                        "met": bool(ok_b and bc is not None and bc <= ic * COLD_COMPILE_TARGET_RATIO),
                        "value": f"{bc:.1f} s vs {ic:.1f} s" if ok_b and bc is not None else "error"})
        bw = b.get("first_step_warm_s")
        if b.get("phase_errors", {}).get("warm") or bw is not None or not ok_b:
            out.append({"model": model, "target": f"bessemer warm start < {WARM_START_TARGET_S:.0f} s",
                        "met": bool(ok_b and bw is not None and bw < WARM_START_TARGET_S),
                        "value": f"{bw:.2f} s{_split(b.get('first_step_warm_compile'))}" if bw is not None
                        else "error"})
    g = geomean_speedups(results)
    if "bessemer" in g and len(_models(results)) > 1:
        gb = g["bessemer"]["geomean"]
        out.append({"model": "all models", "target": f"bessemer geometric-mean speed-up >= {GEOMEAN_TARGET:.2f}x",
                    "met": gb >= GEOMEAN_TARGET, "value": f"{gb:.2f}x over {g['bessemer']['models']} models"})
        if "inductor" in g:
            gi = g["inductor"]["geomean"]
            out.append({"model": "all models", "target": "bessemer geometric-mean speed-up >= Inductor's",
                        "met": gb >= gi, "value": f"{gb:.2f}x vs {gi:.2f}x"})
    return out


def _split(c: Optional[dict]) -> str:
    """Where a first step's compile time went: Dynamo's own share and its backend's."""
    if not c:
        return ""
    if c.get("frames_s") is not None and not c["dynamo_s"]:
        return f": stored frame loaded in {c['frames_s']:.2f} s, no Dynamo trace"
    return f": Dynamo {c['dynamo_s']:.2f} s, backend {c['backend_s']:.2f} s"


def _fallback_count(r: dict) -> str:
    n = r.get("fallbacks") or 0
    return f"{n} fallback{'s' if n != 1 else ''}"


def _models(results: dict) -> list[str]:
    seen = []
    for r in results["rows"]:
        if r["model"] not in seen:
            seen.append(r["model"])
    return seen


def _modes(results: dict) -> list[str]:
    present = {r["mode"] for r in results["rows"]}
    return [m for m in MODE_ORDER if m in present] + sorted(present - set(MODE_ORDER))


# -- cells ----------------------------------------------------------------------------
def _f(value, fmt: str, missing: str = "—") -> str:
    return missing if value is None else format(value, fmt)


def _cells(r: dict) -> list[str]:
    """One row's cells, in the order of COLUMNS; the caller handles error rows."""
    step = r["step_s"]
    errs = r.get("phase_errors", {})
    warm = "err" if "warm" in errs else _f(r.get("first_step_warm_s"), ".2f")
    mem = "err" if "memory" in errs else _mem(r.get("peak_mem_bytes"))
    return [
        f"{step['median'] * 1e3:,.1f} ±{step['spread'] * 50:.0f}%" + (CONTENDED_MARK if _contended(r) else ""),
        _f(r.get("speedup"), ".2f") + ("x" if r.get("speedup") else "") + (EAGER_MARK if ran_eagerly(r) else ""),
        "—" if r["mode"] == "eager" or "fallbacks" not in r else str(r["fallbacks"]),
        _f(r.get("samples_per_s"), ",.1f"),
        _f(r.get("tokens_per_s"), ",.0f"),
        _percent(r.get("mfu")),
        _f(r.get("first_step_cold_s"), ".2f"),
        warm,
        mem,
        _f(r.get("final_loss"), ".4f"),
        _f(r.get("loss_max_rel_diff"), ".1e"),
        _f(r.get("param_max_rel_diff"), ".1e"),
    ]


COLUMNS = ["step ms (±IQR/2)", "vs eager", "fallbacks", "samples/s", "tokens/s", "MFU", "1st step cold s",
           "1st step warm s", "peak MiB", "final loss", "loss Δ", "param Δ"]


def _mem(b: Optional[int]) -> str:
    if b is None:
        return "—"
    mib = b / 2 ** 20
    return f"{mib:,.0f}" if mib >= 100 else f"{mib:.3g}"


def _percent(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return f"{x * 100:.1f}%" if x >= 0.001 else "<0.1%"


# -- the terminal table ----------------------------------------------------------------
def table(results: dict) -> str:
    head = ["model", "mode"] + COLUMNS
    body, notes = [], []
    for r in results["rows"]:
        if r["status"] != "ok":
            body.append([r["model"], r["mode"], f"error: {r['error']}"])
            continue
        body.append([r["model"], r["mode"]] + _cells(r))
        for phase, err in r.get("phase_errors", {}).items():
            notes.append(f"  {r['model']} · {r['mode']} · {phase}: {err}")
    widths = [max([len(head[i])] + [len(b[i]) for b in body if len(b) == len(head) or i < 2])
              for i in range(len(head))]

    def line(cells):
        if len(cells) != len(head):  # an error row: model, mode, then the message
            return "  ".join([cells[0].ljust(widths[0]), cells[1].ljust(widths[1]), cells[2]])
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    out = [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]
    if notes:
        out += ["", "errors in other phases:"] + notes
    out += compile_notes(results, bullet="  ")
    t = targets(results)
    if t:
        out += ["", "targets:"] + [f"  [{'x' if x['met'] else ' '}] {x['model']}: {x['target']} ({x['value']})"
                                   for x in t]
    g = geomean_speedups(results)
    peak = results["meta"].get("matmul_peak", {})
    if _contention_note(results):
        out += ["", _contention_note(results)]
    if _mfu_above_peak(results):
        out += ["", _MFU_WARNING]
    out += ["", "geometric-mean speed-up over eager: " +
            (", ".join(f"{m} {v['geomean']:.2f}x ({v['models']} models)" for m, v in g.items()) or "—"),
            f"matmul peak (MFU denominator): {_gflops(peak)}"]
    return "\n".join(out)


def _contended(r: dict) -> bool:
    return (r.get("foreign_cpu_share") or 0) > CONTENDED_SHARE


def _contention_note(results: dict) -> Optional[str]:
    rows = [r for r in results["rows"] if _contended(r)]
    if not rows:
        return None
    worst = max(r["foreign_cpu_share"] for r in rows)
    return (f"{CONTENDED_MARK} other processes used more than {CONTENDED_SHARE:.0%} of the cores while these "
            f"steps were timed (up to {worst:.0%}): their times are unreliable; rerun on a quiet machine")


_MFU_WARNING = ("note: some MFU values exceed 100%: the matmul peak was measured while other work "
                "competed for the cores, so it is too low")


def _mfu_above_peak(results: dict) -> bool:
    return any((r.get("mfu") or 0) > 1 for r in results["rows"])


def _gflops(peak: dict) -> str:
    if not peak.get("flops_per_s"):
        return "—"
    return (f"{peak['flops_per_s'] / 1e9:,.1f} GFLOP/s ({peak.get('dtype')} {peak.get('n')}x{peak.get('n')} "
            f"matmul on {peak.get('device')})")


# -- markdown: results.md and the tested-models page --------------------------------------
def markdown(results: dict, title: str = "Benchmark results") -> str:
    meta = results["meta"]
    plan = meta.get("plan", {})
    host = meta.get("host", {})
    v = meta.get("versions", {})
    out = [f"# {title}", "",
           "<!-- Generated by `bessemer bench`; every number below comes from a benchmark run. "
           "Do not edit by hand: rerun the command below. -->", "",
           "Regenerate this page with:", "", "```", meta.get("command") or "bessemer bench", "```", "",
           f"Measured {meta.get('date', '')} on {host.get('cpu', '?')} ({host.get('cores', '?')} cores, "
           f"{host.get('torch_threads', '?')} torch threads{_load(host)})"
           + (f", GPU {host['gpu']}" if host.get("gpu") else "")
           + f"; torch {v.get('torch')}, transformers {v.get('transformers')}, bessemer {v.get('bessemer')}. "
           f"Scale `{plan.get('scale')}`, {plan.get('dtype')}, device {plan.get('device')}, "
           + ("transformers models with their published dropout (bessemer draws eager's masks, Inductor "
              "its own), " if plan.get("dropout") else "")
           + f"{plan.get('warmup')} warm-up and {plan.get('steps')} measured steps, AdamW "
           f"(lr {meta.get('learning_rate')}; the small custom models: SGD with momentum and "
           f"clip_grad_norm_, as zoo/small.py's TRAINING says), seed {plan.get('seed')}. "
           f"Matmul peak: {_gflops(meta.get('matmul_peak', {}))}.", ""]
    g = geomean_speedups(results)
    if g:
        out += ["## Summary", "", "Geometric-mean speed-up over eager:", ""]
        out += [f"- **{m}**: {x['geomean']:.2f}x over {x['models']} models" for m, x in g.items()]
        out.append("")
    t = targets(results)
    if t:
        out += ["Targets:", ""] + [f"- [{'x' if x['met'] else ' '}] {x['model']}: {x['target']} ({x['value']})"
                                   for x in t]
        out.append("")
    out += ["## Per model", "", "| model | size | mode | " + " | ".join(COLUMNS) + " |",
            "|" + "---|" * (3 + len(COLUMNS))]
    for r in results["rows"]:
        size = _size(r)
        if r["status"] != "ok":
            out.append(f"| {r['model']} | {size} | {r['mode']} | error: {_md_escape(r['error'])} |"
                       + " |" * (len(COLUMNS) - 1))
        else:
            out.append(f"| {r['model']} | {size} | {r['mode']} | " + " | ".join(_cells(r)) + " |")
    if _contention_note(results):
        out += ["", _contention_note(results) + "."]
    if _mfu_above_peak(results):
        out += ["", _MFU_WARNING[0].upper() + _MFU_WARNING[1:] + "."]
    out += compile_notes(results, bullet="- ")
    notes = [(r, p, e) for r in results["rows"] for p, e in r.get("phase_errors", {}).items()]
    if notes:
        out += ["", "Errors in the warm-start and memory processes:", ""]
        out += [f"- {r['model']} · {r['mode']} · {p}: {_md_escape(e)}" for r, p, e in notes]
    out += step_split_section(results)
    out += bandwidth_section(results)
    out += overhead_section(results)
    out += ["", "## What the columns mean", "", *_COLUMN_NOTES, ""]
    return "\n".join(out)


def compile_notes(results: dict, bullet: str) -> list[str]:
    """What ran eagerly per row, and the ATen ops that had no lowering."""
    eager = [r for r in results["rows"] if ran_eagerly(r)]
    unlowered = [r for r in results["rows"] if r.get("unlowered_ops")]
    out = []
    if eager:
        out += ["", f"{EAGER_MARK} Ran partly eagerly, so not counted as compiled (left out of the geometric "
                    f"mean and the targets):", ""]
        for r in eager:
            out += [f"{bullet}{r['model']} · {r['mode']}: {_md_escape(f.removeprefix('bessemer: '))}"
                    for f in r.get("fallback_notes", [])]
    if unlowered:
        out += ["", "ATen ops with no lowering, run as ATen calls inside compiled graphs (not fallbacks):", ""]
        out += [f"{bullet}{r['model']} · {r['mode']}: {', '.join(r['unlowered_ops'])}" for r in unlowered]
    return out


def step_split_section(results: dict) -> list[str]:
    """Where one profiled training step of bessemer's goes, per model (runtime/step_split.py):
    the matmuls and how close they run to the matmul peak, the other ATen calls, the fused
    kernels, the programs' own time, the optimizer update and the rest, each as a share of the
    step; and the MFU the matmuls alone would allow."""
    rows = [r for r in results["rows"] if r.get("step_split")]
    if not rows:
        return []
    peak = results["meta"].get("matmul_peak", {}).get("flops_per_s")
    out = ["", "## Where a step's time goes (bessemer)", "",
           "Five extra training steps (forward, backward, optimizer update), profiled apart from the timed "
           "steps; the one of median wall time is shown: each part in ms and as a share of that step's wall "
           "time. *MFU if only the matmuls ran* "
           "is the model's FLOPs over the matmul-class ATen calls' time and the matmul peak: the ceiling the "
           "matmuls themselves set. See *What the columns mean* below.", "",
           "| model | step ms | MFU | MFU if only the matmuls ran | matmuls ms | matmul GFLOP/s (of peak) | "
           "other ATen ms | top other ATen ops (ms) | fused kernels ms | kernel GB/s (of copy) | "
           "programs' own ms | optimizer ms | timers ms | rest ms |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = r["step_split"]
        step = s["step_ms"]

        def part(key):
            return f"{s[key]:.2f} ({s[key] / step:.0%})" if step else f"{s[key]:.2f}"

        mm_s = s["matmul_ms"] / 1e3
        mm_rate = s["matmul_flops"] / mm_s if mm_s > 0 else None
        flops = r.get("needed_flops_per_step") or r.get("flops_per_step")
        ceiling = flops / mm_s / peak if mm_s > 0 and peak and flops else None
        k_s = s["kernel_ms"] / 1e3
        k_gbps = s["kernel_bytes"] / k_s / 1e9 if k_s > 0 else None
        copy = r.get("copy_gbps")
        top = ", ".join(f"{o['op']} {o['ms']:.2f}" for o in s.get("other_aten_top", [])) or "—"
        out.append(f"| {r['model']} | {step:.2f} | {_percent(r.get('mfu'))} | {_percent(ceiling)} | "
                   f"{part('matmul_ms')} | {_f(_div(mm_rate, 1e9), ',.1f')}"
                   f"{f' ({mm_rate / peak:.0%})' if mm_rate and peak else ''} | {part('other_aten_ms')} | "
                   f"{_md_escape(top)} | {part('kernel_ms')} | {_f(k_gbps, '.1f')}"
                   f"{f' ({k_gbps / copy:.0%})' if k_gbps and copy else ''} | {part('own_ms')} | "
                   f"{part('update_ms')} | {part('timers_ms')} | {part('rest_ms')} |")
    return out


def _div(x: Optional[float], d: float) -> Optional[float]:
    return None if x is None else x / d


def bandwidth_section(results: dict) -> list[str]:
    """Achieved bandwidth of bessemer's fused kernels, per kernel class, against the
    device's copy bandwidth (one profiled forward and backward per model)."""
    rows = [r for r in results["rows"] if r.get("kernel_bandwidth")]
    if not rows:
        return []
    out = ["", "## Fused-kernel bandwidth (bessemer)", "",
           "Each kernel timed on its own in one extra forward and backward; GB/s counts the bytes of the "
           "buffers a kernel reads and writes. *Large* kernels move at least 4 MiB; the copy column is a "
           "large device-to-device copy, read plus write.", "",
           "| model | kernel class | kernels | large kernels | GB/s (all) | GB/s (large) | copy GB/s | large / copy |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        kb = r["kernel_bandwidth"]
        copy = r.get("copy_gbps")
        for kind in sorted(kb.get("all", {})):
            a = kb["all"][kind]
            lg = kb.get("large", {}).get(kind)
            frac = f"{lg['gbps'] / copy:.0%}" if lg and copy else "—"
            out.append(f"| {r['model']} | {kind} | {a['kernels']} | {lg['kernels'] if lg else 0} | "
                       f"{a['gbps']:.0f} | {_f(lg['gbps'] if lg else None, '.0f')} | {_f(copy, '.0f')} | {frac} |")
    return out


def overhead_section(results: dict) -> list[str]:
    """The fixed cost of bessemer's graph calls next to eager's time per ATen op, per model
    (profile.overhead_profile and profile.eager_op_cost, three forward and backward passes)."""
    eager = {r["model"]: r["eager_ops"] for r in results["rows"] if r.get("eager_ops")}
    rows = [r for r in results["rows"] if r.get("overhead")]
    if not rows:
        return []
    out = ["", "## Graph-call overhead (bessemer) against eager's cost per op", "",
           "Per forward and backward, timed in three extra passes. *Own time* is the time inside bessemer's "
           "graph calls that is neither a kernel nor an ATen call: the generated program's layout checks, "
           "allocations, views and argument passing, the fixed cost a graph call adds. Eager's time per op is "
           "its forward and backward over the ATen ops it dispatches; at a small size it is mostly the "
           "dispatcher's cost, the cost bessemer's launches replace.", "",
           "| model | eager: ATen ops | eager: ms | eager: µs per op | bessemer: graph calls | kernels | "
           "ATen calls | kernel ms | ATen ms | own ms | own µs per graph call | own µs per launch |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        o, e = r["overhead"], eager.get(r["model"]) or {}
        out.append(f"| {r['model']} | {_f(e.get('aten_ops'), '.0f')} | {_f(_ms(e.get('fwd_bwd_us')), '.2f')} | "
                   f"{_f(e.get('us_per_op'), '.1f')} | {o['graph_calls']:.0f} | {o['kernels']:.0f} | "
                   f"{o['externs']:.0f} | {_ms(o['kernel_us']):.2f} | {_ms(o['extern_us']):.2f} | "
                   f"{_ms(o['own_us']):.2f} | {_f(o['own_us_per_call'], '.0f')} | "
                   f"{_f(o['own_us_per_launch'], '.1f')} |")
    return out


def _ms(us: Optional[float]) -> Optional[float]:
    return None if us is None else us / 1e3


def _load(host: dict) -> str:
    load = host.get("load_average") or {}
    if load.get("start") is None:
        return ""
    return f", load average {load['start']:.1f} at the start and {load.get('end') or 0:.1f} at the end"


def _size(r: dict) -> str:
    if r.get("batch") is None:
        return "—"
    parts = [f"batch {r['batch']}"]
    if r.get("seq"):
        parts.append(f"seq {r['seq']}")
    if r.get("image"):
        parts.append(f"{r['image']}px")
    if r.get("n_params"):
        parts.append(f"{r['n_params'] / 1e6:.1f}M params")
    return ", ".join(parts)


def _md_escape(s: Optional[str]) -> str:
    return (s or "").replace("|", "\\|").replace("\n", " ")


_COLUMN_NOTES = [
    "- Each (model, mode) runs in fresh processes with the same seed, data and optimizer (AdamW); "
    "eager is torch's default AdamW, inductor compiles the model with `model.compile()` and wraps "
    "`opt.step` in `torch.compile`, bessemer is `bessemer.compile(model, optimizer=opt)`.",
    "- **step ms**: median wall time of a training step (zero_grad, forward with the loss, backward, "
    "optimizer step) after the warm-up steps; ± is half the interquartile range, relative to the median.",
    "- **vs eager**: eager's median step time divided by this mode's.",
    "- **fallbacks**: the graphs the compiler ran eagerly and the optimizer updates it left to torch, "
    "counted from its warnings during the set-up and all steps. A row with any is marked "
    f"{EAGER_MARK}, its reasons are listed, and it is not counted as compiled: it is left out of the "
    "geometric mean and fails the targets. Ops that run in ATen by design (matmuls, convolutions, "
    "attention, random draws) are not fallbacks; an op with no lowering runs as an ATen call inside a "
    "compiled graph and is listed by name, not counted. results.json also has Dynamo's graph breaks "
    "and the recompiles for new shapes.",
    f"- **{CONTENDED_MARK}**: while the steps were timed, other processes used more than "
    f"{CONTENDED_SHARE:.0%} of the machine's cores (busy time from /proc/stat, stolen time included, minus "
    "the worker's own CPU time); results.json has the share for every row.",
    "- **MFU**: the model's FLOPs per step (matmuls, convolutions and attention of forward and backward, "
    "counted with torch's FlopCounterMode on an eager step, less the rows nothing reads: a classifier's "
    "last layer computes every token, its loss reads one; bessemer leaves those rows out, and results.json "
    "has both counts) divided by the step time and by the matmul peak, the better of two probes run "
    "before and after the workers of the same invocation.",
    "- **1st step cold**: seconds from setting the mode up to the end of the first step, with empty "
    "compiler caches (fresh BESSEMER_CACHE_DIR, TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR); "
    "**warm**: the same in a second fresh process on the caches the first one filled. Eager compiles "
    "nothing, so it has no warm start.",
    "- **peak MiB**: peak live tensor memory of one training step after two earlier steps, measured the "
    "same way for every mode. On a GPU, the CUDA allocator's peak. On the CPU, the profiler's allocation "
    "events for everything allocated through torch's CPU allocator from before the first step "
    "(activations, gradients, optimizer state, buffers compiled code allocates and keeps), plus the "
    "parameters, buffers and input batches that existed before; memory outside torch's allocator is "
    "not counted.",
    "- **Where a step's time goes** (bessemer rows): five more training steps after the measured ones "
    "(and after the parameters were saved for the fidelity columns), with every graph call, fused "
    "kernel and ATen call timed on its own (the wall clock on a CPU, CUDA events on a GPU) and the "
    "optimizer update (clipping included) timed as a whole; the row is the step of median wall time, "
    "whole (its parts add up to it). *step ms*: that step's wall time; each "
    "part is also given as its share of it. *matmuls*: the matmul-class ATen calls inside graph calls "
    "(mm, bmm, addmm, baddbmm, convolution and its backward, scaled-dot-product attention and its "
    "backward, linear); *matmul GFLOP/s*: their FLOPs (from their argument shapes, the same count as "
    "the MFU column's) over their time, and in brackets that as a share of the matmul peak. *other "
    "ATen*: the other ATen calls inside graph calls, with the three that took longest. *fused "
    "kernels*: bessemer's own kernels; *kernel GB/s*: the bytes their buffers read and write over "
    "their time, and in brackets its share of the copy bandwidth of the bandwidth table. *programs' "
    "own*: the rest of the time inside graph calls (the generated programs' layout checks, "
    "allocations, views). *optimizer*: the update. *timers*: what the profile's own timers added "
    "(calibrated). *rest*: everything else in the step: autograd's engine between graph calls, "
    "Dynamo's frame entry, Python in the model and the training loop. *MFU if only the matmuls ran*: "
    "the model's FLOPs divided by the matmuls' time and the matmul peak, the ceiling the matmuls "
    "set, beside the measured MFU.",
    "- **final loss**: the loss of the last step. **loss Δ**: the largest relative difference from "
    "eager's loss over all steps. **param Δ**: after the last step, the largest |p − p_eager| over all "
    "parameters, relative to the largest |p_eager| (results.json also names the tensor with the largest "
    "difference and its difference relative to its own scale). Dropout is off in every model so that "
    "runs are comparable.",
]


# -- the chart -------------------------------------------------------------------------------
def chart(results: dict, path: str) -> None:
    """speed-up over eager and peak memory, per model and mode, side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models, modes = _models(results), _modes(results)
    rows = {(r["model"], r["mode"]): r for r in results["rows"]}
    fig, axes = plt.subplots(1, 2, figsize=(max(8, 1.2 * len(models) + 4) * 1.6, 5))
    width = 0.8 / max(len(modes), 1)
    for ax, key, label in ((axes[0], "speedup", "speed-up over eager (x)"),
                           (axes[1], "peak_mem_bytes", "peak step memory (MiB)")):
        for j, mode in enumerate(modes):
            xs, ys, errs = [], [], []
            for i, model in enumerate(models):
                r = rows.get((model, mode))
                v = r.get(key) if r else None
                x = i + (j - (len(modes) - 1) / 2) * width
                if v is None:
                    if r is not None:
                        errs.append(x)
                    continue
                xs.append(x)
                ys.append(v / 2 ** 20 if key == "peak_mem_bytes" else v)
            bars = ax.bar(xs, ys, width, label=mode)
            ax.bar_label(bars, fmt="%.2f" if key == "speedup" else "%.0f", fontsize=6, padding=1)
            for x in errs:
                ax.text(x, 0, "err", ha="center", va="bottom", fontsize=7, rotation=90, color="red")
        if key == "speedup":
            ax.axhline(1.0, color="gray", linewidth=0.8, linestyle="--")
        ax.set_xlim(-0.5, len(models) - 0.5)
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels(models, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.legend(fontsize=8)
    plan = results["meta"].get("plan", {})
    fig.suptitle(f"bessemer bench — scale {plan.get('scale')}, {plan.get('dtype')}, {plan.get('device')}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- the README's summary block ----------------------------------------------------------------
SUMMARY_START = "<!-- bessemer-bench-summary:start -->"
SUMMARY_END = "<!-- bessemer-bench-summary:end -->"


def has_summary_block(text: str) -> bool:
    i = text.find(SUMMARY_START)
    return i >= 0 and text.find(SUMMARY_END, i) > i


def summary_block(results: dict, page: Optional[str]) -> str:
    """A few lines for the README: the geometric-mean speed-up of each mode, and where the details are."""
    plan = results["meta"].get("plan", {})
    g = geomean_speedups(results)
    speed = "; ".join(f"{m} {x['geomean']:.2f}x" for m, x in g.items() if m != "eager") or "no results"
    where = f" ([tested models]({page}))" if page else ""
    return (f"Geometric-mean speed-up over eager at scale `{plan.get('scale')}` on "
            f"{results['meta'].get('host', {}).get('cpu', '?')}: {speed}{where}. "
            f"Generated by `{results['meta'].get('command')}`.")


def replace_summary_block(text: str, block: str) -> str:
    i = text.index(SUMMARY_START) + len(SUMMARY_START)
    j = text.index(SUMMARY_END, i)
    return text[:i] + "\n" + block + "\n" + text[j:]


# -- writing files ------------------------------------------------------------------------
def write_text(path: str, text: str) -> None:
    """Write a file whole or not at all."""
    atomic_write_text(path, text)
