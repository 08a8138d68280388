"""The whole training step as one compiled program (`bessemer.compile_step`).

`compile_step(model, optimizer, loss_fn, max_grad_norm=...)` returns `step(*args)`,
which runs the forward and the loss, the backward, the gradient clipping of
`torch.nn.utils.clip_grad_norm_` and the optimizer's update as one program built by
bessemer's pipeline, in the way JAX's `jit` of a train step works: the step is a
function of the parameters, the buffers, the optimizer state and the batch.

How: the step is written here as that function (`_StepProgram.fn`), with the
parameters as fresh leaves, `torch.autograd.grad` for the backward and the update
written in place on the parameter and state tensors it receives. AOTAutograd
traces it once per input signature: its trace runs autograd at trace time, so the
backward's ATen ops land in the same graph as the forward's; it functionalizes the
in-place updates and keeps them in the graph as `copy_` of each new value into the
tensor that was passed (the model's parameters, buffers such as a BatchNorm's running
statistics, and the optimizer's state). The graph goes through the pipeline as one
inference graph: one generated program per step and no autograd engine, Dynamo frame
or separate optimizer launch in between. The pipeline turns each such copy into the
update kernel storing the new value straight into the parameter or state
(passes/input_writes.py), run as soon as the gradient is complete and the old value
read for the last time; the gradient dies with it. Parameters and state keep their
storage across steps, and the step holds no second copy of them.

Semantics kept from eager: the optimizer object stays the source of truth (its
`state` and `param_groups` are read and written as torch keeps them, so
`state_dict()` / `load_state_dict()` and learning-rate schedulers work; `lr` is an
input of the program, read from the group at every step). Dropout draws the same
random numbers as eager (the draw is ATen's call, in the forward's order).
Gradients are not stored in `.grad` unless `set_grads=True`: they live inside the
program only, as in JAX.

The program is built from the model's parameters and buffers and the optimizer's
param_groups as they are when it is traced; it reads their tensors at every call, so
in-place changes of values need nothing. What replaces a tensor is checked per call,
in bulk by identity (every module's children, parameters and buffer names, and the
tensors in the optimizer's groups): a parameter assigned anew, a state_dict loaded
with assign=True, a module replaced, a param group added or a group's list changed
builds the step again from the model and the optimizer as they are now. A parameter
whose requires_grad is False gets no gradient and no update, as in eager (its flag is
in the program key). The optimizer's state is an input read from `opt.state` at every
call, so a state reset or loaded needs no rebuild. An optimizer tensor that is no
longer a parameter of the model is a ValueError naming it (eager would silently leave
it and the model's new parameter untrained).

Supported: SGD (momentum, dampening, nesterov, weight decay, maximize), Adam and
AdamW (weight decay, maximize, amsgrad), float32/float64 parameters. Anything
else runs the same step eagerly with one warning, or raises StepCompileError under
`fallback="error"`.
"""
from __future__ import annotations

import itertools
import logging
import math
import operator
import warnings
from typing import Any, Callable, Optional

import torch
from torch.func import functional_call

from bessemer.config import TrainingCompilerConfig, resolve_config
from bessemer.compiler.capture.eager_layouts import eager_layouts
from bessemer.compiler.optim_rules import hyper as _hyper, update as _update

log = logging.getLogger("bessemer")


class StepCompileError(RuntimeError):
    """The step cannot be compiled and config.fallback is "error"."""


def _kind(opt: torch.optim.Optimizer) -> tuple[Optional[str], Optional[str]]:
    """("sgd" | "adam", None) for a supported optimizer, else (None, why not)."""
    t = type(opt)
    if t is torch.optim.SGD:
        kind = "sgd"
    elif t in (torch.optim.Adam, torch.optim.AdamW):
        kind = "adam"
    else:
        return None, f"{t.__name__} has no compiled step (compiled: SGD, Adam, AdamW)"
    for g in opt.param_groups:
        for flag in ("foreach", "fused", "capturable", "differentiable"):
            if g.get(flag):
                return None, f"{flag}=True"
        for p in g["params"]:
            if p.dtype not in (torch.float32, torch.float64) or p.layout != torch.strided:
                return None, f"a parameter has dtype {p.dtype} and layout {p.layout}"
    return kind, None


_TENSORS = (torch.Tensor, torch.nn.Parameter)
_NONE_ID = id(None)
_TRAINING = operator.attrgetter("training")
_SHAPE = operator.attrgetter("shape")
_DTYPE = operator.attrgetter("dtype")
_DEVICE_TYPE = operator.attrgetter("device.type")
_REQUIRES_GRAD = operator.attrgetter("requires_grad")
_PARAMS = operator.itemgetter("params")


def _metas(ts: list) -> tuple:
    """A tensor's part of _batch for a list of tensors (and its type), one C-level pass per attribute."""
    return (tuple(map(_SHAPE, ts)), tuple(map(torch.Tensor.stride, ts)), tuple(map(_DTYPE, ts)),
            tuple(map(_DEVICE_TYPE, ts)), tuple(map(_REQUIRES_GRAD, ts)), tuple(map(type, ts)))


def _batch(args: tuple, kw_vals: list) -> tuple:
    """(what a compiled program depends on in the step's arguments, their pytree leaves): a
    tensor's metadata, the value of anything else (a traced step bakes it in), through lists,
    tuples and dicts; one flattening serves the key and the call."""
    from torch.utils._pytree import tree_flatten
    leaves, spec = tree_flatten((list(args), kw_vals))
    return (str(spec), tuple(("T", tuple(x.shape), x.stride(), x.dtype, x.device.type, x.requires_grad)
                             if isinstance(x, torch.Tensor) else ("V", type(x).__name__, repr(x))
                             for x in leaves)), leaves


class _StepProgram:
    """One traced and compiled step for one signature (shapes, hyperparameters, state present)."""

    def __init__(self, owner: "CompiledStep", plan: list, n_args: int, kwarg_names: tuple):
        self.owner = owner
        self.plan = plan            # per group: (hyper, [position in the optimizer, ...], state present per member)
        self.n_args = n_args
        self.kwarg_names = kwarg_names
        self.new_state_count = 0
        self.used: set = set()
        self.direct = None          # the compiled flat function, once the first call checked it
        # which parameters take a gradient (their flags are in the program key)
        self.requires = tuple(map(_REQUIRES_GRAD, owner.params))
        be = owner.backend
        from torch._functorch.aot_autograd import aot_function
        from bessemer.compiler.capture.backend import _LazyDecompositions
        # the updates stay in the graph as copy_ into the inputs, which the pipeline turns into
        # kernels storing each new value into its parameter or state (passes/input_writes.py)
        self.compiled = aot_function(self.fn, fw_compiler=_rewritten(be.compiler("inference"), owner.config),
                                     keep_inference_input_mutations=True, decompositions=_LazyDecompositions())

    def fn(self, params, buffers, states, lrs, args, kwargs):
        o = self.owner
        with torch.enable_grad():
            leaves = [p.detach().requires_grad_(r) for p, r in zip(params, self.requires)]
            tensors = dict(zip(o.param_names, leaves))
            tensors.update(zip(o.buffer_names, buffers))
            loss = o.loss_fn(_Bound(o.model, tensors), *args, **dict(zip(self.kwarg_names, kwargs)))
            if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
                raise StepCompileError("bessemer.compile_step: loss_fn must return a scalar tensor")
            # a frozen parameter (requires_grad False) has no gradient: the optimizer skips it
            wrt = [j for j, i in enumerate(o.opt_index) if self.requires[i]]
            if not loss.requires_grad:
                raise StepCompileError("bessemer.compile_step: the loss does not require grad "
                                       "(no parameter it depends on requires grad)")
            got = torch.autograd.grad(loss, [leaves[o.opt_index[j]] for j in wrt], allow_unused=True) if wrt else ()
            grads = [None] * len(o.opt_index)
            for j, g in zip(wrt, got):
                grads[j] = g
        # the parameters with a gradient (torch's optimizers skip the others, state and all)
        self.used = {o.opt_index[j] for j, g in enumerate(grads) if g is not None}
        with torch.no_grad():
            out = [loss.detach()]
            live = [g for g in grads if g is not None]
            if o.max_grad_norm is not None and live:
                # torch.nn.utils.clip_grad_norm_ (norm_type 2, non-foreach), op for op
                norms = [torch.linalg.vector_norm(g, 2.0) for g in live]
                total = torch.linalg.vector_norm(torch.stack(norms), 2.0)
                coef = torch.clamp(o.max_grad_norm / (total + 1e-6), max=1.0)
                grads = [None if g is None else g * coef for g in grads]
                out.append(total)
            if o.set_grads:
                out.extend(g for g in grads if g is not None)
            new_states = []
            pos = 0
            for (hyper, members, present), lr in zip(self.plan, lrs):
                for j, has in zip(members, present):
                    g = grads[j]
                    p = params[o.opt_index[j]]
                    st = states[pos] if has else None
                    pos += 1
                    if g is None:
                        continue
                    made = _update(hyper, p, g, st, lr)
                    new_states.extend(made)
            self.new_state_count = len(new_states)
            out.extend(new_states)
        return tuple(out)

    def __call__(self, params, buffers, states, lrs, args, kwargs, leaves):
        if self.direct is not None:
            # what aot_function's wrapper does, without its pytree walk: the step's inputs are
            # lists of tensors whose flattening is known (checked on the first call, below)
            flat = params + buffers
            for st in states:
                if st is None:
                    flat.append(None)
                else:
                    flat.extend(st)
            flat += lrs
            flat += leaves
            return self.direct(flat)
        with eager_layouts():
            out = self.compiled(params, buffers, states, lrs, args, kwargs)
        self.direct = self._direct_fn(params, buffers, states, lrs, args, kwargs, leaves)
        return out

    def _direct_fn(self, params, buffers, states, lrs, args, kwargs, leaves):
        """The compiled flat function behind aot_function's wrapper, where calling it directly is
        what the wrapper does: the wrapper flattens the inputs as __call__ does and the outputs
        are a flat tuple, which it returns as they come. None keeps the wrapper."""
        from torch.utils import _pytree as pytree
        names = self.compiled.__code__.co_freevars
        cells = dict(zip(names, self.compiled.__closure__ or ()))
        try:
            cached_fn, out_spec = cells["cached_res"].cell_contents
        except (KeyError, ValueError, TypeError):
            return None
        if not getattr(out_spec, "is_simple", False) or getattr(out_spec, "is_really_simple", False):
            return None     # outputs the wrapper unflattens (a flat tuple or list it hands on as it is)
        ours = list(params) + list(buffers)
        for st in states:
            ours.extend([None] if st is None else st)
        ours += list(lrs) + list(leaves)
        theirs = pytree.arg_tree_leaves(params, buffers, states, lrs, args, kwargs)
        if len(ours) != len(theirs) or any(a is not b for a, b in zip(ours, theirs)):
            return None
        return cached_fn


def _rewritten(compile_graph, config: TrainingCompilerConfig):
    """compile_graph, after the rewrites a joint graph gets before its partition
    (partition/joint.py): equalities, which as well keep the step's forward from writing
    what only its backward reads (cross-entropy's log-softmax); then, with the bessemer
    partitioner, a vocabulary-sized region (the lm head, the loss and their gradient) runs a
    block of rows at a time (partition/step_chunks.py) and the backward recomputes what its
    plan for memory_budget recomputes (partition/step_remat.py)."""
    from bessemer.compiler.partition.joint import rewrite
    from bessemer.compiler.partition.step_chunks import chunk_rows
    from bessemer.compiler.partition.step_remat import mark_seed, rematerialize

    def run(gm, example_inputs):
        mark_seed(gm)
        rewrite(gm)
        if config.partitioner == "bessemer":
            chunk_rows(gm)
            rematerialize(gm, config.memory_budget)
        return compile_graph(gm, example_inputs)
    return run


class _Bound:
    """The model called with the traced tensors in place of its parameters and buffers."""

    def __init__(self, model: torch.nn.Module, tensors: dict):
        self._model, self._tensors = model, tensors

    def __call__(self, *args, **kwargs):
        return functional_call(self._model, self._tensors, args, kwargs)   # tied weights stay tied

    def __getattr__(self, name):
        return getattr(self._model, name)


class CompiledStep:
    """`step(*args, **kwargs) -> loss`: one training step of `model` with `optimizer`."""

    def __init__(self, model, optimizer, loss_fn, max_grad_norm, set_grads, config):
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.max_grad_norm = None if max_grad_norm is None else float(max_grad_norm)
        self.set_grads = set_grads
        self.config = config
        self.kind, self.why = _kind(optimizer)
        self.programs: dict = {}
        self.rebuilds = 0            # times a call found a tensor replaced and built the step again
        self._former: Optional[dict] = None
        self._walk()
        self._bind_optimizer({})
        from bessemer.compiler.capture.backend import BessemerBackend
        self.backend = BessemerBackend(config)
        self._created: list = []     # momentum buffers made for this step's first update
        self.grad_norm: Optional[torch.Tensor] = None
        self.compiled_steps = 0
        self.eager_steps = 0
        if not config.enabled:
            self.why = "the compiler is disabled by config"    # eager, as bessemer.compile
        elif self.why is not None:
            self._fallback(self.why)

    # -- parameters and buffers, without a walk of the module tree per call -------------
    def _walk(self) -> None:
        """Find the model's parameters (named_parameters' names and order, tied ones once) and
        buffers (named_buffers') and where each buffer lives, and what the tree looked like:
        every module's children, parameters and buffer names. A program is built from these:
        the ones built from an earlier walk are dropped (their key could not match again)."""
        named = list(self.model.named_parameters(remove_duplicate=True))
        self.param_names = [n for n, _ in named]
        self.params = [p for _, p in named]
        named = list(self.model.named_buffers())
        self.buffer_names = [n for n, _ in named]
        self._buffer_slots = [(self.model.get_submodule(n.rpartition(".")[0])._buffers, n.rpartition(".")[2])
                              for n, _ in named]
        # the modules and parameters are held here, so an id in _tree is never a new object's
        modules = self._modules = list(self.model.modules())
        self._held_dicts = [m._modules for m in modules] + [m._parameters for m in modules]
        self._buffer_dicts = [m._buffers for m in modules]
        self._tree = self._tree_now()
        self._new_structure()

    def _new_structure(self) -> None:
        self._structure = getattr(self, "_structure", -1) + 1    # in the program key
        self.programs.clear()

    def _tree_now(self) -> tuple:
        return (list(map(id, itertools.chain.from_iterable(map(dict.values, self._held_dicts)))),
                list(map(tuple, self._buffer_dicts)))

    def _opt_ids(self) -> list:
        return list(map(id, itertools.chain.from_iterable(map(_PARAMS, self.optimizer.param_groups))))

    def _bind_optimizer(self, former: dict) -> None:
        """Where each tensor of the optimizer's groups is among the model's parameters
        (opt_index). `former`: the names of the parameters of the previous walk, by id, for
        the error that names a parameter the model no longer has."""
        self._opt_tensors = None      # until this binding succeeds, every call binds again
        index = {id(p): i for i, p in enumerate(self.params)}
        opt_index = []
        for gi, g in enumerate(self.optimizer.param_groups):
            for k, p in enumerate(g["params"]):
                i = index.get(id(p))
                if i is None:
                    where = f"optimizer.param_groups[{gi}]['params'][{k}]"
                    name = former.get(id(p))
                    if name is None:
                        raise ValueError(f"bessemer.compile_step: {where} holds a tensor that is not a "
                                         f"parameter of the model")
                    now = ("is another tensor" if name in self.param_names else "is gone")
                    raise ValueError(
                        f"bessemer.compile_step: {where} is the model's former parameter {name!r}, which is "
                        f"no longer a parameter of the model (model.{name} {now}: assigned anew, loaded "
                        f"with assign=True or its module replaced); put the model's current parameters in "
                        f"the optimizer's param_groups (eager training would leave both untrained)")
                opt_index.append(i)
        self.opt_index = opt_index
        self._opt_tensors = self._opt_ids()

    def _sync(self) -> None:
        """Build the step again if a parameter, buffer, module or optimizer tensor was replaced
        since the last call (checked in bulk by identity); values changed in place need nothing,
        the program reads the tensors."""
        tree = self._tree_now() != self._tree
        if not tree and self._opt_ids() == self._opt_tensors:
            return
        # the names of the parameters before the change, kept until a binding succeeds
        if self._former is None:
            self._former = dict(zip(map(id, self.params), self.param_names))
        if tree:
            self._walk()
        else:
            self._new_structure()
        self._bind_optimizer(self._former)
        self._former = None
        self.rebuilds += 1
        kind, why = _kind(self.optimizer)     # a new group may carry flags the program lacks
        if why is not None:
            self._opt_tensors = None         # under fallback="error" every call raises again
            self._fallback(why, stacklevel=4)     # the caller of step()
            self.why = why

    def _buffers(self) -> list:
        """named_buffers()' tensors, read from where they live (_sync walked the tree again if
        a module, parameter or buffer was added, removed or replaced); a buffer set to None
        walks it here."""
        buffers = [d[n] for d, n in self._buffer_slots]
        if _NONE_ID in map(id, buffers):     # a buffer set to None: named_buffers skips it
            self._walk()
            buffers = [d[n] for d, n in self._buffer_slots]
        return buffers

    # -- the eager step, for what the program does not cover -------------------------
    def _fallback(self, why: str, stacklevel: int = 3) -> None:
        msg = f"bessemer: the whole step runs eagerly (compile_step): {why}"
        if self.config.fallback == "error":
            raise StepCompileError(msg)
        warnings.warn(msg, stacklevel=stacklevel)

    def _eager(self, args, kwargs) -> torch.Tensor:
        self.optimizer.zero_grad(set_to_none=True)
        loss = self.loss_fn(self.model, *args, **kwargs)
        loss.backward()
        if self.max_grad_norm is not None:
            self.grad_norm = torch.nn.utils.clip_grad_norm_(self.params, self.max_grad_norm)
        self.optimizer.step()
        self.eager_steps += 1
        return loss.detach()

    # -- the compiled step ------------------------------------------------------------
    def __call__(self, *args, **kwargs) -> torch.Tensor:
        if self.why is not None:
            return self._eager(args, kwargs)
        self._sync()
        if self.why is not None:
            return self._eager(args, kwargs)
        opt = self.optimizer
        kw_names = tuple(sorted(kwargs))
        kw_vals = [kwargs[k] for k in kw_names]
        plan, states, lrs, pos = [], [], [], 0
        for g in opt.param_groups:
            n = len(g["params"])
            members = list(range(pos, pos + n))
            pos += n
            present = self._state_of(g, states)
            plan.append((_hyper(self.kind, g), members, present))
            lr = g["lr"]
            lrs.append(torch.tensor(float(lr), dtype=torch.float64))
        buffers = self._buffers()
        batch, leaves = _batch(args, kw_vals)
        # every module's training flag (a submodule in eval mode traces otherwise), not only the root's
        key = (tuple((h, len(m), s) for h, m, s in plan), tuple(map(_TRAINING, self._modules)), batch, kw_names,
               _metas(self.params), self._structure, _metas(buffers), torch.is_grad_enabled())
        prog = self.programs.get(key)
        new = prog is None
        if new:
            prog = self.programs[key] = _StepProgram(self, plan, len(args), kw_names)
        params = list(map(torch.Tensor.detach, self.params))
        if self.set_grads:
            for p in self.params:
                p.grad = None
        try:
            with torch.no_grad():
                out = prog(params, buffers, states, lrs, list(args), kw_vals, leaves)
        except Exception as e:  # noqa: BLE001 - a step that cannot be traced runs eagerly
            # The first call traces and compiles before it runs anything, so nothing was
            # updated yet: the eager step takes over from the same state.
            if not new or self.config.fallback == "error" or isinstance(e, StepCompileError):
                raise
            del self.programs[key]
            for p in self._created:
                del opt.state[p]
            self._created.clear()
            first = (str(e).strip().splitlines() or [""])[0]
            self.why = f"tracing the step failed ({type(e).__name__}: {first})"
            self._fallback(self.why)
            return self._eager(args, kwargs)
        self._take_outputs(prog, plan, out)
        self._drop_unused(prog)
        opt._opt_called = True     # what an lr scheduler checks: the optimizer stepped
        self.compiled_steps += 1
        return out[0]

    def _state_of(self, group: dict, states: list) -> tuple:
        """Append the group's state tensors to `states` (None for a parameter whose momentum
        buffer the program creates); returns whether each member has its state. Adam's state
        is created here, as torch's _init_group creates it."""
        opt = self.optimizer
        if self.kind == "sgd":
            if float(group["momentum"]) == 0:
                states.extend([] for _ in group["params"])
                return (True,) * len(group["params"])
            bufs = [opt.state.get(p, {}).get("momentum_buffer") for p in group["params"]]
            if all(b is None for b in bufs) and float(group["dampening"]) == 0:
                # torch's first step sets buf = grad; with no dampening 0 * momentum + grad is
                # that same value, so zero buffers made here let the first step run the same
                # program as every later one (one compile instead of two); those of parameters
                # that get no gradient are dropped again after the step (_drop_unused)
                for p in group["params"]:
                    opt.state[p]["momentum_buffer"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    self._created.append(p)
                bufs = [opt.state[p]["momentum_buffer"] for p in group["params"]]
            states.extend(None if b is None else [b] for b in bufs)
            return tuple(b is not None for b in bufs)
        from torch.optim.optimizer import _get_scalar_dtype
        amsgrad = bool(group.get("amsgrad", False))
        for p in group["params"]:
            st = opt.state[p]
            if len(st) == 0:
                st["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
                st["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                st["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                if amsgrad:
                    st["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                self._created.append(p)    # dropped after the step if p gets no gradient
            if not amsgrad:
                states.append([st["exp_avg"], st["exp_avg_sq"], st["step"]])
            elif "max_exp_avg_sq" in st:
                # optim_rules.update's order: exp_avg, exp_avg_sq, step, max_exp_avg_sq
                states.append([st["exp_avg"], st["exp_avg_sq"], st["step"], st["max_exp_avg_sq"]])
            else:
                raise ValueError("bessemer.compile_step: amsgrad=True, but the optimizer state of a parameter "
                                 "has no 'max_exp_avg_sq' (amsgrad was turned on after its state was made; "
                                 "torch's Adam fails on it too)")
        return (True,) * len(group["params"])

    def _drop_unused(self, prog: _StepProgram) -> None:
        index = {id(p): i for i, p in enumerate(self.params)}
        for p in self._created:
            if index[id(p)] not in prog.used:
                del self.optimizer.state[p]
        self._created.clear()

    def _take_outputs(self, prog: _StepProgram, plan: list, out: tuple) -> None:
        i = 1
        if self.max_grad_norm is not None:
            self.grad_norm = out[i]
            i += 1
        opt_params = [p for g in self.optimizer.param_groups for p in g["params"]]
        if self.set_grads:
            # the program returns the (clipped) gradient of every parameter that has one
            n = len(out) - i - prog.new_state_count
            grads = iter(out[i:i + n])
            for p, j in zip(opt_params, self.opt_index):
                if j in prog.used:
                    p.grad = next(grads)
            i += n
        made = iter(out[i:])
        if self.kind == "sgd":
            for hyper, members, present in plan:
                for j, has in zip(members, present):
                    if not has and self.opt_index[j] in prog.used:
                        self.optimizer.state[opt_params[j]]["momentum_buffer"] = next(made)


def compile_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                 loss_fn: Callable[..., torch.Tensor], *, max_grad_norm: Optional[float] = None,
                 set_grads: bool = False, config: Optional[TrainingCompilerConfig] = None,
                 **options: Any) -> CompiledStep:
    """Compile a whole training step: forward, loss, backward, clipping, update.

    ``step = bessemer.compile_step(model, opt, loss_fn, max_grad_norm=1.0)``, then
    ``loss = step(*batch)`` does what ``opt.zero_grad(); loss = loss_fn(model, *batch);
    loss.backward(); clip_grad_norm_(model.parameters(), 1.0); opt.step()`` does.
    `loss_fn(model, *args, **kwargs)` returns a scalar tensor. `set_grads=True` also
    leaves the (clipped) gradients in `.grad`, as the eager step does; by default they
    are freed inside the program. `step.grad_norm` is clip_grad_norm_'s return value.
    """
    cfg = resolve_config(config, **options)
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"bessemer.compile_step: model must be an nn.Module, got {type(model).__name__}")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise ValueError(f"bessemer.compile_step: optimizer must be a torch.optim.Optimizer, "
                         f"got {type(optimizer).__name__}")
    if not callable(loss_fn):
        raise ValueError("bessemer.compile_step: loss_fn must be callable as loss_fn(model, *args)")
    if max_grad_norm is not None and not (isinstance(max_grad_norm, (int, float)) and
                                          not isinstance(max_grad_norm, bool) and
                                          math.isfinite(max_grad_norm) and max_grad_norm > 0):
        raise ValueError(f"bessemer.compile_step: max_grad_norm must be a positive number, got {max_grad_norm!r}")
    if cfg.retain_host_memory:
        # as bessemer.compile does: the step's freed buffers stay in malloc's heap for the next
        # step instead of being faulted in afresh (bn-cnn at scale small, one process each: 24.0 -> 16.7 ms a step)
        from bessemer.compiler.runtime import hostmem
        hostmem.retain()
    return CompiledStep(model, optimizer, loss_fn, max_grad_norm, set_grads, cfg)
