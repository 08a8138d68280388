"""Random programs checked against eager PyTorch: the program form, its inputs, the check.

A program is straight-line Python over torch: named inputs (`a0`, `a1`, ...), one
statement per line defining or updating values (`v0`, `v1`, ...), and a tuple of
outputs. It is compiled forward and backward by bessemer with fallback="error"
and must agree with eager on

- every output (shape, dtype, values),
- the gradient of every input that requires one (the loss is a fixed random
  weighting of every differentiable output),
- every input after the call (programs may update inputs in place).

Floating values are compared with tolerances that fit their dtype; where eager is
itself far from exact (bf16 chains, long fp32 sums), the program is also run in
float64 and the compiled result passes when its error is within a small factor
of eager's own error (the way Inductor judges accuracy).

Everything is a function of a seed: the inputs' values, the loss weights and,
in progfuzz_gen, the program itself.
"""
from __future__ import annotations

import linecache
import math
import weakref
import re
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "int64": torch.int64, "bool": torch.bool}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


# ----------------------------------------------------------------------------------
# inputs
# ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Input:
    """One input tensor: its shape, dtype and memory layout; the values come from the seed.

    layout: "c" contiguous; "t<perm>" a permuted contiguous tensor (e.g. "t201":
    storage in dims order 2,0,1); "s" every other element of a larger tensor along
    each dim (non-contiguous, non-zero offset); "cl" channels-last (rank 4 or 5);
    "e" a broadcast (stride 0) view of one row.
    low/high: the value range of an int64 input ([low, high)).
    seed: the values' seed (they do not depend on the input's position).
    special: a float input with NaN, +Inf and -Inf among its values (about 3 in 16).
    """
    shape: tuple
    dtype: str = "float32"
    layout: str = "c"
    grad: bool = False
    low: int = -4
    high: int = 5
    seed: int = 0
    special: bool = False

    def __repr__(self) -> str:
        parts = [repr(tuple(self.shape)), repr(self.dtype)]
        if self.layout != "c":
            parts.append(f"layout={self.layout!r}")
        if self.grad:
            parts.append("grad=True")
        if self.dtype == "int64" and (self.low, self.high) != (-4, 5):
            parts.append(f"low={self.low}, high={self.high}")
        parts.append(f"seed={self.seed}")
        if self.special:
            parts.append("special=True")
        return f"Input({', '.join(parts)})"


def _values(spec: Input) -> torch.Tensor:
    gen = torch.Generator().manual_seed(spec.seed % (2 ** 63))
    shape = tuple(spec.shape)
    if spec.dtype in ("float32", "bfloat16"):
        vals = torch.randn(shape, generator=gen)
        if spec.special:
            k = torch.randint(0, 16, shape, generator=gen)
            for i, v in enumerate((math.nan, math.inf, -math.inf)):
                vals = torch.where(k == i, torch.full_like(vals, v), vals)
        return vals.to(DTYPES[spec.dtype])
    if spec.dtype == "int64":
        return torch.randint(spec.low, spec.high, shape, generator=gen)
    return torch.randint(0, 2, shape, generator=gen).bool()


def _layout(spec: Input, dtype: torch.dtype) -> torch.Tensor:
    """Uninitialized storage of the spec's shape with the spec's strides."""
    shape = tuple(spec.shape)
    lay = spec.layout
    if lay == "c" or len(shape) == 0:
        return torch.empty(shape, dtype=dtype)
    if lay.startswith("t"):
        perm = [int(c) for c in lay[1:]]
        inv = [perm.index(i) for i in range(len(perm))]
        return torch.empty([shape[p] for p in perm], dtype=dtype).permute(inv)
    if lay == "s":
        big = torch.empty([2 * s + 1 for s in shape], dtype=dtype)
        return big[tuple(slice(1, None, 2) for _ in shape)]
    if lay == "cl":
        fmt = torch.channels_last if len(shape) == 4 else torch.channels_last_3d
        return torch.empty(shape, dtype=dtype).contiguous(memory_format=fmt)
    if lay == "e":
        return torch.empty((1,) + shape[1:], dtype=dtype).expand(shape)
    raise ValueError(f"Input.layout: unknown layout {lay!r}")


def make_input(spec: Input, upcast: bool = False) -> torch.Tensor:
    """A fresh input tensor; with upcast, a floating input becomes float64 (same values)."""
    vals = _values(spec)
    dt = torch.float64 if upcast and vals.is_floating_point() else vals.dtype
    t = _layout(spec, dt)
    with torch.no_grad():
        if spec.layout == "e" and vals.dim() > 0:
            t[:1].copy_(vals[:1])    # one row, broadcast
        else:
            t.copy_(vals)
    return t.detach().requires_grad_(True) if spec.grad else t


def make_inputs(specs: Sequence[Input], upcast: bool = False) -> list[torch.Tensor]:
    return [make_input(s, upcast) for s in specs]


def make_truth_inputs(specs: Sequence[Input]) -> list[torch.Tensor]:
    """Float64 inputs for the truth run, contiguous except for expanded ones.

    The truth does not depend on memory layout, and eager has kernels that do:
    CPU batch_norm's backward reads a strided weight as if it were contiguous
    (tests/fuzz/test_regressions.py::test_batch_norm_strided_weight). An expanded
    input stays expanded, since eager refuses in-place updates of it."""
    out = []
    for s, t in zip(specs, make_inputs(specs, upcast=True)):
        if s.layout not in ("c", "e") and not t.is_contiguous():
            t = t.detach().contiguous().requires_grad_(t.requires_grad)
        out.append(t)
    return out


# ----------------------------------------------------------------------------------
# programs
# ----------------------------------------------------------------------------------
NAME = re.compile(r"\b[av]\d+\b")


@dataclass
class Program:
    inputs: list[Input]
    lines: list[str]            # Python statements over a0.., v0..
    outputs: list[str]          # names returned
    seed: int = 0

    def source(self, fname: str = "prog", indent: str = "") -> str:
        args = ", ".join(f"a{i}" for i in range(len(self.inputs)))
        body = [f"{indent}def {fname}({args}):"]
        body += [f"{indent}    {ln}" for ln in self.lines]
        body.append(f"{indent}    return ({', '.join(self.outputs)}{',' if len(self.outputs) == 1 else ''})")
        return "\n".join(body) + "\n"

    def function(self, fname: str = "prog") -> Callable:
        src = self.source(fname)
        filename = f"<fuzz program {self.seed} {abs(hash(src)) % 10 ** 8}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns: dict = {"torch": torch, "F": F}
        exec(compile(src, filename, "exec"), ns)
        return ns[fname]

    def copy(self, **changes) -> "Program":
        fields = dict(inputs=list(self.inputs), lines=list(self.lines), outputs=list(self.outputs), seed=self.seed)
        fields.update(changes)
        return Program(**fields)


def combine(programs: Sequence[Program]) -> Program:
    """Several independent programs as one, their names renamed apart."""
    inputs, lines, outputs = [], [], []
    nv = 0
    for p in programs:
        amap = {f"a{i}": f"a{i + len(inputs)}" for i in range(len(p.inputs))}
        vnames = sorted({m for ln in p.lines for m in NAME.findall(ln) if m[0] == "v"}, key=lambda s: int(s[1:]))
        vmap = {v: f"v{nv + i}" for i, v in enumerate(vnames)}
        nv += len(vnames)
        ren = {**amap, **vmap}
        sub = lambda s: NAME.sub(lambda m: ren.get(m.group(0), m.group(0)), s)  # noqa: E731
        inputs += p.inputs
        lines += [sub(ln) for ln in p.lines]
        outputs += [sub(o) for o in p.outputs]
    return Program(inputs, lines, outputs, programs[0].seed if programs else 0)


# ----------------------------------------------------------------------------------
# running
# ----------------------------------------------------------------------------------
class Upcast(TorchFunctionMode):
    """Every floating dtype a program names, or gets by default (torch.ones(3)),
    becomes float64: the float64 reference run.

    A cast keeps its aliasing: `a.float()` of a bfloat16 input is a copy in eager, so it is
    one here too, although the float64 input needs no conversion (a view would let a later
    in-place update of `a` change what the cast's result saved for the backward). `nominal`
    gives the inputs' dtypes in the program; a cast's result gets the dtype it names."""

    _CASTS = {torch.Tensor.float: torch.float32, torch.Tensor.bfloat16: torch.bfloat16,
              torch.Tensor.half: torch.float16, torch.Tensor.double: torch.float64}

    def __init__(self, nominal: Sequence[tuple[torch.Tensor, torch.dtype]] = ()):
        super().__init__()
        self._nominal: dict[int, tuple] = {}     # id -> (weak reference, dtype): tensors compare by value
        for t, dt in nominal:
            self._note(t, dt)

    def _note(self, t: torch.Tensor, dt: torch.dtype) -> None:
        self._nominal[id(t)] = (weakref.ref(t), dt)

    def _dtype_of(self, t: torch.Tensor) -> Optional[torch.dtype]:
        ref, dt = self._nominal.get(id(t), (None, None))
        return dt if ref is not None and ref() is t else None

    def __enter__(self):
        self._default = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        return super().__enter__()

    def __exit__(self, *exc):
        torch.set_default_dtype(self._default)
        return super().__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        target = self._CASTS.get(func)
        if func is torch.Tensor.to:
            target = next((a for a in (*args[1:], kwargs.get("dtype")) if isinstance(a, torch.dtype)), None)
        if target is not None and target.is_floating_point and isinstance(args[0], torch.Tensor):
            x = args[0]
            out = x.to(torch.float64) if func in self._CASTS else func(
                x, *[self._up(a) for a in args[1:]], **{k: self._up(v) for k, v in kwargs.items()})
            was = self._dtype_of(x)
            if out is x and was is not None and was != target:
                out = out.clone()
            if out is not x:
                self._note(out, target)
            return out
        return func(*[self._up(a) for a in args], **{k: self._up(v) for k, v in kwargs.items()})

    @staticmethod
    def _up(a):
        return torch.float64 if isinstance(a, torch.dtype) and a.is_floating_point else a


@dataclass
class Result:
    outputs: list           # tensors (detached) or other values
    grads: list             # per input with grad: its .grad (None if it got none)
    after: list             # every input after the call
    error: Optional[BaseException] = None
    where: str = ""         # "compile/forward" or "backward" when error
    sharing: list = field(default_factory=list)   # per output: inputs and earlier outputs it shares memory with


def loss_weights(seed: int, outputs: Sequence[Any], dtype=torch.float32) -> list:
    ws = []
    for i, o in enumerate(outputs):
        gen = torch.Generator().manual_seed(seed * 31 + i)
        ws.append(torch.randn(tuple(o.shape), generator=gen).to(dtype) if isinstance(o, torch.Tensor) else None)
    return ws


def _flat(outs) -> list:
    res = []
    for o in (outs if isinstance(outs, (tuple, list)) else [outs]):
        if isinstance(o, (tuple, list)):
            res += _flat(o)
        else:
            res.append(o)
    return res


def run(fn: Callable, specs: Sequence[Input], seed: int, mode: str = "eager") -> Result:
    """Call fn on fresh inputs, then backward through a weighted sum of its outputs.

    mode "ref" runs in float64 (inputs upcast, every dtype the program names upcast).
    """
    upcast = mode == "ref"
    inputs = make_truth_inputs(specs) if upcast else make_inputs(specs)
    torch.default_generator.manual_seed(seed)   # dropout draws the same masks in every run
    stage = "forward"
    try:
        if upcast:
            with Upcast(nominal=[(x, DTYPES[sp.dtype]) for x, sp in zip(inputs, specs)]):
                outs = _flat(fn(*inputs))
        else:
            outs = _flat(fn(*inputs))
        stage = "backward"
        ws = loss_weights(seed, outs, torch.float64 if upcast else torch.float32)
        terms = [(o.to(w.dtype) * w).sum() for o, w in zip(outs, ws)
                 if isinstance(o, torch.Tensor) and o.requires_grad and o.is_floating_point()]
        if terms:
            torch.stack(terms).sum().backward()
    except Exception as e:  # noqa: BLE001 - reported by the caller
        return Result([], [], [], e, stage)
    grads = [x.grad for x, s in zip(inputs, specs) if s.grad]
    return Result([o.detach() if isinstance(o, torch.Tensor) else o for o in outs], grads,
                  [x.detach() for x in inputs], sharing=_sharing(inputs, outs))


def _sharing(inputs: list, outs: list) -> list:
    """Per output, the inputs (a0..) and earlier outputs (out0..) whose memory it
    shares: a caller may update an output in place, so this is part of the result."""
    def ptr(t):
        return t.untyped_storage().data_ptr() if isinstance(t, torch.Tensor) and t.numel() else None
    ins = [ptr(x) for x in inputs]
    res = []
    for i, o in enumerate(outs):
        p = ptr(o)
        res.append(set() if p is None else {f"a{j}" for j, q in enumerate(ins) if q == p}
                   | {f"output {j}" for j in range(i) if ptr(outs[j]) == p})
    return res


# ----------------------------------------------------------------------------------
# comparing
# ----------------------------------------------------------------------------------
_TOL = {torch.float32: (1e-4, 1e-5), torch.bfloat16: (1.6e-2, 1e-2), torch.float64: (1e-7, 1e-7),
        torch.float16: (1e-3, 1e-3)}
# Against the float64 truth, compiled may be `factor` times as far as eager, plus a
# floor relative to the tensor's magnitude. One element is judged as a whole
# tensor is: when a value sums terms that nearly cancel (the gradient of
# normalize, of a broadcast scalar), which of two valid summation orders lands
# nearer the truth is chance, and the floor (1% of the scale for bf16) keeps that
# chance from being reported; a wrong result is far beyond it.
_REF_FACTOR = {torch.float32: 2.0, torch.bfloat16: 3.0}
_REF_FLOOR = {torch.float32: 1e-6, torch.bfloat16: 1e-2}


def _close(c: torch.Tensor, e: torch.Tensor) -> bool:
    rtol, atol = _TOL.get(e.dtype, (0, 0))
    c64, e64 = c.double(), e.double()
    finite = torch.isfinite(e64)
    scale = 1.0 + (e64[finite].abs().max().item() if finite.any() else 0.0)
    return bool(torch.isclose(c64, e64, rtol=rtol, atol=atol * scale, equal_nan=True).all())


def _rmse(a: torch.Tensor, b: torch.Tensor) -> float:
    d = (a.double() - b.double())
    d = torch.where(torch.isnan(a.double()) & torch.isnan(b.double()), torch.zeros_like(d), d)
    return math.sqrt(float((d * d).mean())) if d.numel() else 0.0


def _ref_close(c: torch.Tensor, e: torch.Tensor, r: torch.Tensor) -> bool:
    """c is within a small factor of eager's own error against the float64 truth."""
    if r is None or r.shape != c.shape or e.dtype not in _REF_FACTOR:
        return False
    if not r.numel():
        return True
    r = r.double()
    finite = r[torch.isfinite(r)]
    # (a NaN or an infinity of the truth is compared element by element, not a scale: seed
    # 64423's NaN made the floor NaN, and a gradient exactly the truth's failed against it)
    scale = 1.0 + (float(finite.abs().max()) if finite.numel() else 0.0)
    err_c, err_e = _max_err(c, r), _max_err(e, r)
    floor = _REF_FLOOR[e.dtype] * scale
    return err_c <= _REF_FACTOR[e.dtype] * err_e + floor or \
        _rmse(c, r) <= _REF_FACTOR[e.dtype] * _rmse(e, r) + floor


def _max_err(a: torch.Tensor, r: torch.Tensor) -> float:
    d = (a.double() - r).abs()
    d = torch.where(torch.isnan(a.double()) & torch.isnan(r), torch.zeros_like(d), d)
    return float(torch.nan_to_num(d, nan=float("inf")).max())


def _describe(c: torch.Tensor, e: torch.Tensor) -> str:
    if c.shape != e.shape or c.dtype != e.dtype:
        return f"compiled {tuple(c.shape)} {c.dtype}, eager {tuple(e.shape)} {e.dtype}"
    if c.numel() == 0:
        return "empty"
    d = (c.double() - e.double()).abs()
    d = torch.where(torch.isnan(d) & ~(torch.isnan(c.double()) & torch.isnan(e.double())),
                    torch.full_like(d, float("inf")), torch.nan_to_num(d, nan=0.0))
    i = int(d.flatten().argmax())
    idx = tuple(int(k) for k in torch.unravel_index(torch.tensor(i), c.shape)) if c.dim() else ()
    n_bad = int((d > 0).sum())
    return (f"{n_bad}/{c.numel()} elements differ; worst at {idx}: compiled {c.flatten()[i].item()!r}, "
            f"eager {e.flatten()[i].item()!r}")


def compare(specs: Sequence[Input], c: Result, e: Result, ref: Callable[[], Optional[Result]]) -> list[str]:
    """The differences between a compiled and an eager result (empty: they agree)."""
    problems = []
    ref_res: list = []

    def get_ref():
        if not ref_res:
            r = ref()
            ref_res.append(r if r is not None and r.error is None else None)
        return ref_res[0]

    def check(label: str, cv, ev, pick):
        if isinstance(ev, torch.Tensor) != isinstance(cv, torch.Tensor):
            problems.append(f"{label}: compiled {type(cv).__name__}, eager {type(ev).__name__}")
            return
        if not isinstance(ev, torch.Tensor):
            if cv != ev:
                problems.append(f"{label}: compiled {cv!r}, eager {ev!r}")
            return
        if cv.shape != ev.shape or cv.dtype != ev.dtype:
            problems.append(f"{label}: {_describe(cv, ev)}")
            return
        if not ev.is_floating_point():
            if torch.equal(cv, ev):
                return
            # a decision eager's rounding flipped (seed 75176: `any` of a bf16 layer norm
            # over one element, exactly 0, where eager's kernel leaves a float32 residue):
            # the compiled one agrees with the float64 truth's
            r = get_ref()
            rv = pick(r) if r is not None else None
            if isinstance(rv, torch.Tensor) and rv.shape == cv.shape and rv.dtype == cv.dtype \
                    and torch.equal(cv, rv):
                return
            problems.append(f"{label}: {_describe(cv, ev)}")
            return
        if _close(cv, ev):
            return
        r = get_ref()
        if r is not None and _ref_close(cv, ev, pick(r)):
            return
        problems.append(f"{label}: {_describe(cv, ev)}")

    if len(c.outputs) != len(e.outputs):
        return [f"compiled returns {len(c.outputs)} values, eager {len(e.outputs)}"]
    for i, (cv, ev) in enumerate(zip(c.outputs, e.outputs)):
        check(f"output {i}", cv, ev, lambda r, i=i: r.outputs[i] if i < len(r.outputs) else None)
    names = [f"a{i}" for i, s in enumerate(specs) if s.grad]
    for j, (cg, eg) in enumerate(zip(c.grads, e.grads)):
        # AOTAutograd gives a zero gradient where eager gives none (an input copied
        # into another input, no output reading it): the same gradient
        if cg is None and eg is not None and not eg.any() or eg is None and cg is not None and not cg.any():
            continue
        if (cg is None) != (eg is None):
            problems.append(f"{names[j]}.grad: compiled {'None' if cg is None else 'a tensor'}, "
                            f"eager {'None' if eg is None else 'a tensor'}")
        elif cg is not None:
            check(f"{names[j]}.grad", cg, eg, lambda r, j=j: r.grads[j] if j < len(r.grads) else None)
    for i, (cs, es) in enumerate(zip(c.sharing, e.sharing)):
        if cs != es:
            problems.append(f"output {i} shares memory with {sorted(cs) or 'nothing'} compiled, "
                            f"with {sorted(es) or 'nothing'} in eager")
    for i, (ca, ea) in enumerate(zip(c.after, e.after)):
        check(f"input a{i} after the call", ca, ea, lambda r, i=i: r.after[i] if i < len(r.after) else None)
    return problems


# ----------------------------------------------------------------------------------
# checking: compiled against eager
# ----------------------------------------------------------------------------------
class InvalidProgram(Exception):
    """The program fails in eager PyTorch itself: not a compiler bug."""


@dataclass
class Failure:
    kind: str          # "error:<exception type>" or "mismatch"
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}\n{self.detail}"


@dataclass(frozen=True)
class Target:
    """How programs are compiled: the kernel backend and the kernel cache folder
    (default: one per process, so a kernel repeated across programs is built once);
    `dynamic`: compiled with symbolic sizes (torch.compile's dynamic=True), so the
    kernels take the sizes as arguments."""
    backend: str = "auto"
    cache_dir: Optional[str] = None
    dynamic: bool = False

    def compile(self, fn: Callable) -> Callable:
        from bessemer.compiler.capture.backend import make_backend
        from bessemer.config import TrainingCompilerConfig
        cfg = TrainingCompilerConfig(cache_dir=self.cache_dir or _default_cache_dir(), fallback="error",
                                     backend=self.backend)
        # fullgraph: a graph break would run part of the program eagerly, unchecked
        return torch.compile(fn, backend=make_backend(cfg), dynamic=self.dynamic, fullgraph=True)


_cache_dir: list = []


def _default_cache_dir() -> str:
    if not _cache_dir:
        import tempfile
        _cache_dir.append(tempfile.mkdtemp(prefix="bessemer-fuzz-"))
    return _cache_dir[0]


def compile_fn(fn: Callable, target: Optional[Target] = None) -> Callable:
    return (target or Target()).compile(fn)


def _cause(e: BaseException) -> BaseException:
    """The compiler's own exception inside Dynamo's wrapper."""
    inner = getattr(e, "inner_exception", None)
    return inner if isinstance(inner, BaseException) else e


def _error_text(e: BaseException) -> str:
    e = _cause(e)
    tb = traceback.format_exception(type(e), e, e.__traceback__)
    text = "".join(tb[-4:]).strip()
    return text[-3000:]


def check_fn(fn: Callable, specs: Sequence[Input], seed: int, target: Optional[Target] = None) -> Optional[Failure]:
    """None if `fn` compiled by bessemer agrees with eager on specs' inputs, else the Failure."""
    e = run(fn, specs, seed, "eager")
    if e.error is not None:
        raise InvalidProgram(f"eager {e.where} fails: {type(e.error).__name__}: {e.error}")
    c = run(compile_fn(fn, target), specs, seed, "compiled")
    if c.error is not None:
        return Failure(f"error:{type(_cause(c.error)).__name__}", f"in the compiled {c.where}:\n{_error_text(c.error)}")
    problems = compare(specs, c, e, lambda: run(fn, specs, seed, "ref"))
    return Failure("mismatch", "\n".join(problems)) if problems else None


def check(prog: Program, target: Optional[Target] = None) -> Optional[Failure]:
    return check_fn(prog.function(), prog.inputs, prog.seed, target)


def assert_like_eager(fn: Callable, inputs: Sequence[Input], seed: int = 0, backend: str = "auto") -> None:
    """The assertion of a fuzzer-found regression test."""
    failure = check_fn(fn, inputs, seed, Target(backend))
    assert failure is None, str(failure)
