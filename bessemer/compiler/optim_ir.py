"""The compiled `opt.step()` through bessemer's own IR.

For one parameter group and one step's signature (the members' shapes, strides,
dtypes and device, which state exists, the hyperparameters baked in), the update
of all the group's parameters is one function

    (params, grads, states, lr, steps) -> state tensors it creates

written with optim_rules.update (the rules compile_step traces too). AOTAutograd
traces it into one inference graph (functionalized, the updates kept in the graph
as copy_ of each new value into the parameter or state tensor it was given) and
bessemer's pipeline compiles that graph like any other: the update kernels store
the new values straight into the parameters and state (passes/input_writes.py),
C++ for CPU tensors, Triton for CUDA tensors (codegen/backends.py picks by the
device and config.backend). `lr` is an input (schedulers change it); so are Adam's step
counts: torch keeps each `state["step"]` on the CPU whatever the parameter's
device, so the step adds 1 to them on the host (as torch's own step does) and
hands their values to the program as one float64 tensor on the group's device.

optim.py decides when a group runs here (see its docstring); this module builds,
caches and runs the programs, and says why a group cannot run here.
"""
from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch
from torch.optim.optimizer import _get_scalar_dtype

from bessemer.compiler import optim_rules

# Parameter dtypes the IR path updates (the pipeline's float types; complex
# parameters, which torch updates through view_as_real, are not among them).
IR_DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16)
IR_DEVICES = ("cpu", "cuda")
_PLAIN = (torch.Tensor, torch.nn.Parameter)
_STEP_DTYPES = (torch.float32, torch.float64)


def param_reason(p: torch.Tensor) -> Optional[str]:
    """Why parameter p cannot be updated by a compiled program (None: it can)."""
    if type(p) not in _PLAIN:
        return f"a parameter is a {type(p).__name__} (a tensor subclass)"
    if p.device.type not in IR_DEVICES:
        return f"a parameter is on {p.device} (the compiled update is for CPU and CUDA tensors)"
    if p.dtype not in IR_DTYPES:
        return (f"a parameter has dtype {p.dtype} (the compiled update is for float32, float64, "
                f"bfloat16 and float16)")
    if p.layout != torch.strided:
        return f"a parameter has layout {p.layout}"
    if p.is_inference():
        return "a parameter is an inference tensor"
    return None


def _companion_reason(p: torch.Tensor, t: Any, what: str) -> Optional[str]:
    """Why t (a gradient or state tensor of p) cannot go into p's program."""
    if not isinstance(t, torch.Tensor):
        return f"{what} is a {type(t).__name__}, not a tensor"
    if type(t) not in _PLAIN:
        return f"{what} is a {type(t).__name__} (a tensor subclass)"
    if t.layout != torch.strided:
        return f"{what} has layout {t.layout}" + (" (sparse gradients)" if t.is_sparse else "")
    if t.device != p.device:
        return f"{what} is on {t.device}, its parameter on {p.device}"
    if t.dtype != p.dtype:
        return f"{what} has dtype {t.dtype}, its parameter {p.dtype}"
    if t.shape != p.shape:
        return f"{what} has a different shape than its parameter"
    return None


def _fits(p: torch.Tensor, t: Any) -> bool:
    """The common case, in cheap attribute reads: t is a plain strided tensor shaped, typed and
    placed as p (the checks run for every parameter on every step)."""
    return (type(t) in _PLAIN and t.shape == p.shape and t.dtype == p.dtype and t.layout == torch.strided
            and t.device == p.device)


@dataclass
class Program:
    """One compiled group update: the flat-argument callable and what it returns."""
    fn: Callable[[list], Any]
    key: tuple
    backend: str         # what rendered its kernels: "cpp" or "triton"
    n_kernels: int


class IRCall:
    """One program call: the members of one group on one device, with their inputs."""

    def __init__(self, kind: str, hyper: tuple, device: torch.device):
        self.kind = kind
        self.hyper = hyper
        self.device = device
        self.params: list[torch.Tensor] = []
        self.grads: list[torch.Tensor] = []
        self.states: list[Optional[list[torch.Tensor]]] = []
        self.steps: list[torch.Tensor] = []            # adam: the CPU step tensors
        self.state_dicts: list[dict] = []             # sgd: where a new momentum buffer goes
        self.sig: list[tuple] = []

    def add(self, p: torch.Tensor, g: torch.Tensor, state: Optional[list], step: Optional[torch.Tensor],
            state_dict: dict) -> None:
        self.params.append(p)
        self.grads.append(g)
        self.states.append(state)
        self.state_dicts.append(state_dict)
        if step is not None:
            self.steps.append(step)
        # shapes and dtypes only: the program takes any strides (its wrapper lays out an input
        # that differs from the traced one, and copies a written one back)
        self.sig.append((p.shape, p.dtype, None if state is None else len(state)))

    def key(self) -> tuple:
        return (self.hyper, self.device.type, self.device.index, tuple(self.sig))

    # -- the traced function -----------------------------------------------------------------
    def traced_fn(self) -> Callable:
        """The group's update as a function of flat tensors (what AOTAutograd traces)."""
        hyper, n = self.hyper, len(self.params)
        widths = [0 if s is None else len(s) for s in self.states]
        adam = self.kind == "adam"

        def fn(*flat):
            params, grads = flat[:n], flat[n:2 * n]
            pos = 2 * n
            made = []
            lr = flat[-2] if adam else flat[-1]
            steps = flat[-1] if adam else None
            for i in range(n):
                st = list(flat[pos:pos + widths[i]]) if widths[i] else None
                pos += widths[i]
                if adam:
                    st.insert(2, None)          # the step tensor stays out: counted on the host
                made.extend(optim_rules.update(hyper, params[i], grads[i], st, lr,
                                               step=steps[i] if adam else None))
            return tuple(made)
        return fn

    def flat_args(self, lr: torch.Tensor, steps: Optional[torch.Tensor]) -> list:
        out = list(self.params) + list(self.grads)
        for st in self.states:
            if st is not None:
                out.extend(st)
        out.append(lr)
        if steps is not None:
            out.append(steps)
        return out


def collect(opt: torch.optim.Optimizer, group: dict, kind: str, hyper: tuple) -> tuple[list[IRCall], Optional[str]]:
    """The program calls that update `group` (one per device), or why it cannot run here.
    Adam's missing state is created as torch's _init_group creates it, once every check passed."""
    rows = []
    amsgrad = kind == "adam" and hyper[-1]
    momentum = kind == "sgd" and hyper[1] != 0
    keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())
    for p in group["params"]:
        g = p.grad
        if g is None:
            continue
        if not (type(p) in _PLAIN and p.dtype in IR_DTYPES and p.device.type in IR_DEVICES
                and p.layout == torch.strided and not p.is_inference() and _fits(p, g)):
            why = param_reason(p) or _companion_reason(p, g, "a gradient")
            if why:
                return [], why
        state = opt.state.get(p)
        if kind == "sgd" and momentum:
            buf = state.get("momentum_buffer") if state else None
            if buf is not None and not _fits(p, buf) and (why := _companion_reason(p, buf, "a momentum buffer")):
                return [], why
        elif kind == "adam" and state:
            for key in keys:
                t = state.get(key)
                if t is None:
                    return [], f"state of a parameter has no {key!r}"
                if not _fits(p, t) and (why := _companion_reason(p, t, f"state {key!r}")):
                    return [], why
            step = state.get("step")
            if not (type(step) in _PLAIN and step.dim() == 0 and step.is_cpu and step.dtype in _STEP_DTYPES):
                return [], "state 'step' is not a 0-d float32/float64 CPU tensor"
        rows.append((p, g))
    calls: dict[torch.device, IRCall] = {}
    scalar_dtype = _get_scalar_dtype()
    for p, g in rows:
        call = calls.get(p.device)
        if call is None:
            call = calls[p.device] = IRCall(kind, hyper, p.device)
        if kind == "sgd":
            state = opt.state.get(p)
            buf = state.get("momentum_buffer") if state else None
            # with momentum and no buffer yet the program makes it (torch's first step: the gradient)
            call.add(p, g, [buf] if buf is not None else (None if momentum else []), None,
                     opt.state[p] if momentum and buf is None else {})
            continue
        state = opt.state[p]
        if len(state) == 0:
            state["step"] = torch.tensor(0.0, dtype=scalar_dtype)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            if amsgrad:
                state["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        call.add(p, g, [state[k] for k in keys], state["step"], state)
    return list(calls.values()), None


# -- compiling ----------------------------------------------------------------------------------

# Compiled programs of this process, shared by every optimizer: a program is a function of its
# signature (its hyperparameters are baked in, everything else is an input).
_programs: dict[tuple, Program] = {}
_programs_lock = threading.Lock()


def program_for(call: IRCall, config, name: str) -> Program:
    """The compiled program for call's signature: this process's, or compiled now. Raises
    whatever the trace or the pipeline raised."""
    key = (call.key(), config.resolved_cache_dir(), config.backend, config.resolved_debug_dir())
    with _programs_lock:
        prog = _programs.get(key)
    if prog is None:
        prog = compile_program(call, config, name)
        with _programs_lock:
            prog = _programs.setdefault(key, prog)
    return prog


def compile_program(call: IRCall, config, name: str) -> Program:
    """Trace the call's update with AOTAutograd and compile its graph with bessemer's pipeline,
    without running it (so that a step whose programs do not all compile updates nothing).

    Raises whatever the trace or the pipeline raised."""
    from torch._functorch import aot_autograd as aot
    from torch._functorch.aot_autograd import create_tree_flattened_fn
    from bessemer.compiler.capture.backend import ENV_VERIFY, _LazyDecompositions
    from bessemer.compiler.pipeline import Pipeline

    built = []

    def compile_graph(gm: torch.fx.GraphModule, example_inputs):
        debug = config.resolved_debug_dir()
        ddir = os.path.join(debug, "optimizer", name) if debug else None
        # verified as every graph is under BESSEMER_VERIFY=1 (the tests) and with a debug folder
        cg = Pipeline(config.resolved_cache_dir(), ddir, name, config.backend,
                      verify=os.environ.get(ENV_VERIFY) == "1", gemm=config.gemm).run(gm, example_inputs, "error")
        cg.fn._boxed_call = True
        built.append(cg)
        return cg.fn

    args = call.flat_args(*_example_scalars(call))
    fn = call.traced_fn()
    aot_config = aot.AOTConfig(
        fw_compiler=None, bw_compiler=None, inference_compiler=None, partition_fn=None,
        decompositions=_LazyDecompositions(), num_params_buffers=0, aot_id=next(aot.AOT_COUNTER),
        keep_inference_input_mutations=True, dynamic_shapes=False, aot_autograd_arg_pos_to_source=None,
        is_export=False, no_tangents=False, enable_log=False)
    # What aot_function does at its first call, less the call: fake inputs, the trace, the compile.
    flat_fn, _ = create_tree_flattened_fn(fn, tuple(args), {})
    fake_mode, shape_env = aot.construct_fake_mode(args, aot_config)
    fake_args = aot.process_inputs(args, aot_config, fake_mode, shape_env)
    act_input_indices = None
    if isinstance(fake_args, tuple):   # torch 2.13: (fake args, the activations' indices)
        fake_args, act_input_indices = fake_args
    descs = [aot.PlainAOTInput(i) for i in range(len(fake_args))]
    with torch.no_grad(), contextlib.ExitStack() as stack:
        state = aot.create_aot_state(stack, flat_fn, fake_args, descs, aot_config, fake_mode, shape_env)
        if act_input_indices is not None:
            state.fw_metadata.act_input_indices = act_input_indices
        capture = aot.aot_stage1_graph_capture(state, flat_fn)
        compiled, _ = aot.aot_stage2_compile(state, capture, aot.default_partition, compile_graph,
                                             compile_graph, compile_graph)
    return Program(compiled, call.key(), built[0].backend, built[0].n_kernels)


def _example_scalars(call: IRCall) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
    lr = torch.zeros((), dtype=torch.float64, device=call.device)
    steps = torch.ones(len(call.params), dtype=torch.float64, device=call.device) if call.kind == "adam" else None
    return lr, steps


# -- running ------------------------------------------------------------------------------------

def run(call: IRCall, program: Program, lr: float) -> None:
    """One step of the group's members through `program`."""
    lr_t = torch.tensor(lr, dtype=torch.float64).to(call.device, non_blocking=True)
    steps = None
    if call.kind == "adam":
        # torch's step: state["step"] += 1 on the host, then its value feeds the bias corrections
        # (the program gets the counts after the increment; the tensors are stepped once it ran)
        steps = torch.stack([s if s.dtype == torch.float64 else s.to(torch.float64) for s in call.steps]) + 1
        steps = steps.to(call.device, non_blocking=True)
    made = program.fn(call.flat_args(lr_t, steps))
    if call.kind == "adam":
        torch._foreach_add_(call.steps, 1)
    if call.kind == "sgd" and made:
        fresh = (d for st, d in zip(call.states, call.state_dicts) if st is None)
        for buf, state in zip(made, fresh):
            state["momentum_buffer"] = buf
