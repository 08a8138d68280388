"""`bessemer bench --dynamic`: training over varying input shapes, against a static run.

    bessemer bench --dynamic                        gpt2 at scale small over 64..128 tokens, all modes
    bessemer bench gpt2 bert-base-uncased --dynamic --lengths 64,80,96,112,128 --batches 4,8

Real training data changes shape: text padded per batch (Hugging Face's
DataCollatorWithPadding) has a new sequence length at nearly every step, and an
epoch's last batch is smaller. For each token model and mode, two worker
processes (runner.py's, each with its own empty cache folders):

  shapes  the model trained over every (batch, length) of the plan, cycled `passes`
          times. The first pass visits each shape for the first time (its steps
          include whatever compiling that shape costs); the later passes are the
          steady state. Counts the graphs Dynamo compiled for the model's forward
          and backward, and bessemer's pipeline runs (a static graph, or one shape
          of a graph with symbolic sizes), per step.
          Then, in the same process, an interleaved A/B at the reference shape: a
          copy of the model taken before the set-up, compiled for static shapes
          (`dynamic=False`), and the model that served every shape take turns
          step by step on the same batch.
  static  the same model trained at one shape only, the reference shape (the
          largest batch and length), timed as `bessemer bench` times a model:
          first step, warm-up steps, measured steps.

The A/B ratio (the graph that serves every shape over the static one, at the
reference shape) is what serving many shapes costs at one shape: interleaved in
one process, so a shared machine's drift over minutes does not enter it, as it
enters the ratio of the two processes' steps. Each mode is set up as in the rest of
the bench (runner.MODES: Inductor through `model.compile()`, torch.compile's
default dynamic=None; bessemer through `bessemer.compile`, the config's default
`dynamic`). Fallbacks are counted from bessemer's warnings as everywhere in the
bench (fallbacks.py); a row with any does not count as compiled.
"""
from __future__ import annotations

import copy
import dataclasses
import os
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Optional

import torch

from .. import zoo
from . import fallbacks, measure, report, runner, suite

PHASES = ("shapes", "static")
DEFAULT_MODELS = ("gpt2",)
DEFAULT_PASSES = 4  # the later passes give each shape 3 steps: a median that one slow step does not move
KIND = "dynamic"  # results.json's meta["kind"]
# The target: at the same shape, a step of the graph that serves every shape
# is at most this much slower than a step of a graph compiled for that shape alone.
STEADY_VS_STATIC_TARGET = 1.05


def default_lengths(seq: int) -> list[int]:
    """Half the scale's sequence length up to all of it, in eighths: 64, 80, 96, 112, 128 for 128."""
    return sorted({max(2, seq * k // 8) for k in range(4, 9)})


@dataclass
class DynamicPlan:
    models: list[str]
    modes: list[str]
    shapes: list[tuple[int, int]]            # (batch, sequence length), in visiting order
    scale: str = "small"
    passes: int = DEFAULT_PASSES
    steps: int = 10                          # the static run's measured steps
    warmup: int = 3                          # and its warm-up steps
    dtype: str = "fp32"
    device: str = "cpu"
    seed: int = 0
    timeout_s: float = 1800.0
    command: str = ""

    @property
    def reference(self) -> tuple[int, int]:
        """The shape of the static run: the largest batch and the longest sequence."""
        return max(b for b, _ in self.shapes), max(s for _, s in self.shapes)

    # what cli._check_fit reads: the largest step of the plan
    batch = property(lambda self: self.reference[0])
    seq = property(lambda self: self.reference[1])
    image = None

    def n_processes(self) -> int:
        return len(self.models) * len(self.modes) * len(PHASES)


# -- the worker (worker.run_job calls it for the phases above) -----------------------------
def run_worker(job: dict, stage) -> dict:
    from torch._dynamo.utils import counters

    from ..zoo import hf
    hf.quiet()
    torch.manual_seed(job["seed"])
    device = torch.device(job["device"])
    mode = job["mode"]
    amp = runner._autocast(device, job["dtype"])
    ref_b, ref_l = job["reference"]

    stage("build")
    w = zoo.build(job["model"], job["scale"], ref_b, ref_l, seed=job["seed"], device=device)
    model = w.model
    opt = torch.optim.AdamW(model.parameters(), lr=runner.LEARNING_RATE)
    if job["phase"] == "static":
        schedule = [(ref_b, ref_l)] * (1 + job["warmup"] + job["steps"])
    else:
        schedule = [tuple(s) for s in job["shapes"]] * job["passes"]
    # Every step's batch is made before anything is timed; step i draws the data of step i.
    batches = [dataclasses.replace(w, batch=b, seq=s).make_batch(i) for i, (b, s) in enumerate(schedule)]

    def forward_backward(batch, m=model):
        with amp():
            loss = w.loss_fn(m, batch)
        loss.backward()
        return loss

    # The same eager forward and backward in every mode before the set-up, as runner.py does.
    stage("eager warm-up")
    forward_backward(batches[0])
    model.zero_grad(set_to_none=True)
    torch.manual_seed(job["seed"])
    # the static side of the A/B, as the model is before any set-up
    twin = copy.deepcopy(model) if job["phase"] == "shapes" and job.get("ab_rounds") else None

    def graphs() -> int:
        return counters["stats"]["unique_graphs"]

    steps = []
    with fallbacks.Recorder() as recorded:
        stage(f"{mode} set-up")
        opt_step = runner.MODES[mode](model, opt)
        backend = getattr(model.forward, "_bessemer_backend", None)  # bessemer: its .compiled graphs

        def pipeline_runs() -> Optional[int]:
            return None if backend is None else len(backend.compiled)

        stage("steps")
        with measure.Contention() as contention:
            for i, shape in enumerate(schedule):
                g0, p0 = graphs(), pipeline_runs()

                def step():
                    opt.zero_grad(set_to_none=True)
                    loss = forward_backward(batches[i])
                    g1 = graphs()  # Dynamo compiles the model's frames in the forward
                    opt_step()
                    return loss.detach(), g1

                (loss, g1), dt = measure.timed(step, device)
                p1 = pipeline_runs()
                steps.append({"shape": list(shape), "s": dt, "loss": float(loss), "model_graphs": g1 - g0,
                              "optimizer_graphs": graphs() - g1,
                              "pipeline_runs": None if p1 is None else p1 - p0})
        if job.get("params_path"):   # as the shapes left them (the A/B below trains on)
            stage("save parameters")
            torch.save({n: p.detach().to("cpu", torch.float32) for n, p in model.named_parameters()},
                       job["params_path"])
        ab = _ab_at_reference(job, mode, model, opt, opt_step, twin, forward_backward, w, device, stage) \
            if twin is not None else None
    return {"steps": steps, "n_params": w.n_params(), "foreign_cpu_share": contention.share,
            "compile_report": recorded.report().as_dict(), "ab": ab}


def setup_static(mode: str, model: torch.nn.Module, opt: torch.optim.Optimizer):
    """A mode's set-up for one shape only (`dynamic=False`): the static side of the A/B."""
    if mode == "inductor":
        model.compile(dynamic=False)

        @torch.compile(fullgraph=False)
        def opt_step():
            opt.step()
        return opt_step
    if mode == "bessemer":
        import bessemer
        bessemer.compile(model, optimizer=opt, dynamic=False)
    return opt.step


def _ab_at_reference(job, mode, model, opt, opt_step, twin, forward_backward, w, device, stage) -> dict:
    """The model that served every shape and its static twin, stepped in turns at the
    reference shape on the same batch: their step times, side by side."""
    stage("static A/B")
    ref_b, ref_l = job["reference"]
    batch = dataclasses.replace(w, batch=ref_b, seq=ref_l).make_batch(0)
    twin_opt = torch.optim.AdamW(twin.parameters(), lr=runner.LEARNING_RATE)
    twin_step = setup_static(mode, twin, twin_opt)
    sides = {"dynamic": (model, opt, opt_step), "static": (twin, twin_opt, twin_step)}
    times: dict[str, list] = {"dynamic": [], "static": []}
    for i in range(1 + job["warmup"] + job["ab_rounds"]):
        for name, (m, o, step_fn) in sides.items():
            def step():
                o.zero_grad(set_to_none=True)
                loss = forward_backward(batch, m)
                step_fn()
                return loss.detach()
            _, dt = measure.timed(step, device)
            if i > job["warmup"]:   # the first step compiles the twin; then warm-up steps
                times[name].append(dt)
    return times


# -- the run -------------------------------------------------------------------------------------
def run(plan: DynamicPlan, progress: suite.Progress = suite.Progress()) -> dict:
    """Run every worker of `plan`, one at a time; the results (the content of results.json)."""
    t0, load_start = time.perf_counter(), suite.load_average()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bessemer-bench-dynamic-") as work:
        for model in plan.models:
            model_rows = []
            for mode in plan.modes:
                results = {}
                for phase in PHASES:
                    progress.start(f"{model} · {mode} · {phase}")
                    name = f"{suite._safe(model)}-{mode}"
                    job = {"model": model, "scale": plan.scale, "mode": mode, "phase": phase,
                           "dtype": plan.dtype, "device": plan.device, "seed": plan.seed,
                           "shapes": [list(s) for s in plan.shapes], "reference": list(plan.reference),
                           "passes": plan.passes, "steps": plan.steps, "warmup": plan.warmup,
                           "ab_rounds": plan.steps,
                           # suite._fidelity compares the parameters after the `shapes` run with eager's
                           "params_path": os.path.join(work, f"{name}.params.pt") if phase == "shapes" else None}
                    results[phase] = suite.spawn(job, os.path.join(work, f"{name}-{phase}"),
                                                 os.path.join(work, f"{name}-{phase}-caches"), plan.timeout_s)
                    progress.advance()
                model_rows.append(_row(plan, model, mode, results))
            suite._fidelity(model_rows, work, model)
            for row in model_rows:
                progress.row_done(row)
            rows.extend(model_rows)
    meta = _meta(plan, time.perf_counter() - t0)
    meta["host"]["load_average"] = {"start": load_start, "end": suite.load_average()}
    return {"meta": meta, "rows": rows}


def _meta(plan: DynamicPlan, wall_s: float) -> dict:
    import platform

    import bessemer
    try:
        import transformers
        tf_version = transformers.__version__
    except ImportError:  # pragma: no cover
        tf_version = None
    host = {"cpu": measure.cpu_name(), "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "platform": platform.platform(), "python": platform.python_version()}
    if plan.device == "cuda":
        host["gpu"] = torch.cuda.get_device_name(0)
    p = asdict(plan)
    p["reference"] = list(plan.reference)
    return {"kind": KIND, "command": plan.command, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "versions": {"bessemer": bessemer.__version__, "torch": torch.__version__,
                         "transformers": tf_version},
            "host": host, "plan": p, "wall_s": wall_s, "learning_rate": runner.LEARNING_RATE}


def is_dynamic(results: dict) -> bool:
    return results.get("meta", {}).get("kind") == KIND


def _median(xs: list[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


def _row(plan: DynamicPlan, model: str, mode: str, results: dict) -> dict:
    ref = tuple(plan.reference)
    row = {"model": model, "mode": mode, "scale": plan.scale, "dtype": plan.dtype, "device": plan.device,
           "reference": list(ref), "status": "ok", "error": None}
    for phase in PHASES:
        r = results.get(phase, {})
        if not r.get("ok"):
            row.update(status="error", error=f"{phase}: {r.get('stage', phase)}: {r.get('error', 'failed')}")
            return row
    sh, st = results["shapes"]["steps"], results["static"]["steps"]
    ab = results["shapes"].get("ab")
    n = len(plan.shapes)
    first, later = sh[:n], sh[n:]
    per_shape = []
    for b, s in plan.shapes:
        times = [x["s"] for x in later if tuple(x["shape"]) == (b, s)]
        per_shape.append({"batch": b, "seq": s, "first_s": next(x["s"] for x in first if tuple(x["shape"]) == (b, s)),
                          "later_s": _median(times)})
    ref_later = [x["s"] for x in later if tuple(x["shape"]) == ref]
    static = measure.summarize([x["s"] for x in st[1 + plan.warmup:]])
    later_ref = measure.summarize(ref_later)
    pipe = [x["pipeline_runs"] for x in sh]
    row.update(
        n_params=results["shapes"]["n_params"], shapes=per_shape,
        # the model's forward and backward: Dynamo's graphs, and bessemer's pipeline runs
        dynamo_graphs=sum(x["model_graphs"] for x in sh),
        dynamo_graphs_later=sum(x["model_graphs"] for x in later),
        optimizer_graphs=sum(x["optimizer_graphs"] for x in sh),
        pipeline_runs=None if None in pipe else sum(pipe),
        pipeline_runs_later=None if None in pipe else sum(x["pipeline_runs"] for x in later),
        static_dynamo_graphs=sum(x["model_graphs"] for x in st),
        static_pipeline_runs=None if any(x["pipeline_runs"] is None for x in st)
        else sum(x["pipeline_runs"] for x in st),
        first_visit_s=statistics.fmean(x["first_s"] for x in per_shape),
        later_s=statistics.fmean(x["later_s"] for x in per_shape) if later else None,
        later_ref_s=later_ref, static_s=static, static_first_step_s=st[0]["s"],
        process_ratio=(later_ref["median"] / static["median"]) if later_ref and static else None,
        ab_dynamic_s=measure.summarize(ab["dynamic"]) if ab else {},
        ab_static_s=measure.summarize(ab["static"]) if ab else {},
        ratio=(statistics.median(ab["dynamic"]) / statistics.median(ab["static"]))
        if ab and ab["dynamic"] and ab["static"] else None,
        losses=[x["loss"] for x in sh], final_loss=sh[-1]["loss"],
        foreign_cpu_share=max((results[p].get("foreign_cpu_share") or 0) for p in PHASES))
    notes = [f for p in PHASES for f in results[p]["compile_report"].get("fallbacks", [])]
    unlowered = list(dict.fromkeys(o for p in PHASES for o in results[p]["compile_report"].get("unlowered_ops", [])))
    row.update(fallbacks=len(notes), fallback_notes=notes, unlowered_ops=unlowered,
               graph_breaks=results["shapes"]["compile_report"].get("graph_breaks", 0))
    return row


# -- rendering -------------------------------------------------------------------------------------
COLUMNS = ["Dynamo graphs (later)", "pipeline runs (later)", "1st visit ms", "later ms", "later ms @ref",
           "static ms @ref", "A/B ms @ref", "@ref vs static", "fallbacks", "loss Δ", "param Δ"]


def _ms(x: Optional[float]) -> str:
    return "—" if x is None else f"{x * 1e3:,.1f}"


def _cells(r: dict) -> list[str]:
    mark = report.CONTENDED_MARK if (r.get("foreign_cpu_share") or 0) > report.CONTENDED_SHARE else ""
    pipe = "—" if r.get("pipeline_runs") is None else f"{r['pipeline_runs']} ({r['pipeline_runs_later']})"
    return [f"{r['dynamo_graphs']} ({r['dynamo_graphs_later']})", pipe, _ms(r["first_visit_s"]),
            _ms(r["later_s"]) + mark, _ms(r["later_ref_s"].get("median")) + mark,
            _ms(r["static_s"].get("median")) + mark,
            f"{_ms(r.get('ab_dynamic_s', {}).get('median'))} / {_ms(r.get('ab_static_s', {}).get('median'))}",
            "—" if r.get("ratio") is None else f"{r['ratio']:.2f}x",
            "—" if r["mode"] == "eager" else str(r["fallbacks"]) + (report.EAGER_MARK if r["fallbacks"] else ""),
            report._f(r.get("loss_max_rel_diff"), ".1e"), report._f(r.get("param_max_rel_diff"), ".1e")]


def _shapes_text(plan: dict) -> str:
    shapes = plan.get("shapes") or []
    batches = list(dict.fromkeys(b for b, _ in shapes))
    lengths = list(dict.fromkeys(s for _, s in shapes))
    return (f"batch {','.join(map(str, batches))} x lengths {','.join(map(str, lengths))}, "
            f"{plan.get('passes')} passes; reference {plan['reference'][0]} x {plan['reference'][1]}")


def targets(results: dict) -> list[dict]:
    out = []
    for r in results["rows"]:
        if r["mode"] == "eager":
            continue
        if r["status"] != "ok":
            out.append({"row": f"{r['model']} · {r['mode']}", "target": "runs", "met": False, "value": "error"})
            continue
        label = f"{r['model']} · {r['mode']}"
        if r["mode"] == "bessemer":
            out.append({"row": label, "target": "no fallbacks", "met": r["fallbacks"] == 0,
                        "value": str(r["fallbacks"])})
        later = r["dynamo_graphs_later"] + (r.get("pipeline_runs_later") or 0)
        out.append({"row": label, "target": "nothing compiled after the first pass", "met": later == 0,
                    "value": f"{r['dynamo_graphs_later']} Dynamo graphs"
                             + (f", {r['pipeline_runs_later']} pipeline runs" if r.get("pipeline_runs") is not None
                                else "")})
        ratio = r.get("ratio")
        out.append({"row": label, "target": f"step at the reference shape <= {STEADY_VS_STATIC_TARGET:.2f}x static",
                    "met": bool(ratio and ratio <= STEADY_VS_STATIC_TARGET and not r["fallbacks"]),
                    "value": f"{ratio:.2f}x" if ratio else "—"})
    return out


def table(results: dict) -> str:
    head = ["model", "mode"] + COLUMNS
    body = [[r["model"], r["mode"]] + (_cells(r) if r["status"] == "ok" else [f"error: {r['error']}"])
            for r in results["rows"]]
    widths = [max([len(head[i])] + [len(b[i]) for b in body if len(b) == len(head) or i < 2])
              for i in range(len(head))]

    def line(cells):
        if len(cells) != len(head):
            return "  ".join([cells[0].ljust(widths[0]), cells[1].ljust(widths[1]), cells[2]])
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    out = [f"shapes: {_shapes_text(results['meta']['plan'])}", "",
           line(head), line(["-" * w for w in widths])] + [line(b) for b in body]
    out += report.compile_notes(results, bullet="  ")
    t = targets(results)
    if t:
        out += ["", "targets:"] + [f"  [{'x' if x['met'] else ' '}] {x['row']}: {x['target']} ({x['value']})"
                                   for x in t]
    return "\n".join(out)


def markdown(results: dict) -> str:
    meta, plan = results["meta"], results["meta"]["plan"]
    host, v = meta.get("host", {}), meta.get("versions", {})
    out = ["# Benchmark results: varying shapes", "",
           "<!-- Generated by `bessemer bench --dynamic`; do not edit by hand: rerun the command below. -->", "",
           "```", meta.get("command") or "bessemer bench --dynamic", "```", "",
           f"Measured {meta.get('date', '')} on {host.get('cpu', '?')} ({host.get('cores', '?')} cores"
           + (f", GPU {host['gpu']}" if host.get("gpu") else "")
           + f"); torch {v.get('torch')}, transformers {v.get('transformers')}, bessemer {v.get('bessemer')}. "
           f"Scale `{plan.get('scale')}`, {plan.get('dtype')}, device {plan.get('device')}, AdamW "
           f"(lr {meta.get('learning_rate')}), seed {plan.get('seed')}. Shapes: {_shapes_text(plan)}; the "
           f"static run: {plan.get('warmup')} warm-up and {plan.get('steps')} measured steps at the reference.", "",
           "| model | mode | " + " | ".join(COLUMNS) + " |", "|" + "---|" * (2 + len(COLUMNS))]
    for r in results["rows"]:
        if r["status"] != "ok":
            out.append(f"| {r['model']} | {r['mode']} | error: {report._md_escape(r['error'])} |"
                       + " |" * (len(COLUMNS) - 1))
        else:
            out.append(f"| {r['model']} | {r['mode']} | " + " | ".join(_cells(r)) + " |")
    out += report.compile_notes(results, bullet="- ")
    t = targets(results)
    if t:
        out += ["", "Targets:", ""] + [f"- [{'x' if x['met'] else ' '}] {x['row']}: {x['target']} ({x['value']})"
                                       for x in t]
    out += ["", "## Per shape", "", "| model | mode | batch | length | 1st visit ms | later ms |",
            "|---|---|---|---|---|---|"]
    for r in results["rows"]:
        for s in r.get("shapes") or []:
            out.append(f"| {r['model']} | {r['mode']} | {s['batch']} | {s['seq']} | {_ms(s['first_s'])} | "
                       f"{_ms(s['later_s'])} |")
    out += ["", "## What the columns mean", "", *_COLUMN_NOTES, ""]
    return "\n".join(out)


_COLUMN_NOTES = [
    "- Each (model, mode) runs in two fresh processes with empty compiler caches: *shapes* trains over every "
    "shape in order, the whole cycle `passes` times (the first pass is each shape's first visit); *static* "
    "trains at the reference shape (the largest batch and length) only.",
    "- **Dynamo graphs**: graphs Dynamo compiled for the model's forward (and so its backward) over the "
    "shapes run; in brackets, those compiled after the first pass (0 when every shape seen once is served "
    "without compiling again). The optimizer's graphs are in results.json (`optimizer_graphs`).",
    "- **pipeline runs** (bessemer): graphs bessemer's pipeline compiled over the shapes run: a static "
    "graph, or a graph with symbolic sizes (once for every shape its size decisions hold for); in "
    "brackets, after the first pass.",
    "- **1st visit ms**: mean over the shapes of the step that met the shape first (compiling included). "
    "**later ms**: mean over the shapes of the median step of the later passes.",
    "- **later ms @ref**: the median step of the later passes at the reference shape; **static ms @ref**: "
    "the median measured step of the static run (two processes, minutes apart: their ratio includes the "
    "machine's drift). **A/B ms @ref**: at the end of the shapes run, in the same process, the model that "
    "served every shape and a copy compiled for static shapes (`dynamic=False`) take turns step by step on "
    "one batch at the reference shape: their median steps. **@ref vs static**: the A/B ratio, what serving "
    f"every shape costs at one shape (target: at most {STEADY_VS_STATIC_TARGET:.2f}x). Eager's is the noise "
    "floor.",
    "- **fallbacks**: graphs that ran eagerly and optimizer updates left to torch, from the compiler's "
    f"warnings in both runs, as in `bessemer bench`; a row with any is marked {report.EAGER_MARK}. "
    "**loss Δ**, **param Δ**: the shapes run against eager's, as in `bessemer bench`.",
    f"- **{report.CONTENDED_MARK}**: other processes used more than {report.CONTENDED_SHARE:.0%} of the cores "
    "while the steps were timed.",
]
