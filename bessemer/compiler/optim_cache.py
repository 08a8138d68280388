"""A parameter group's fused update calls kept from one step to the next (optim.py's template path).

Planning a group's update (optim._sgd_calls / _adam_calls) reads every parameter's gradient,
state and metadata through Python code and builds ctypes arrays of their addresses: a few
hundred Python-level calls per step, which on a model whose step takes a millisecond is a
large part of it. Between two steps of a training loop nothing of that changes except the
gradients (new tensors after `zero_grad(set_to_none=True)`) and the hyperparameters' values
(a scheduler's lr). `GroupCache` keeps the planned calls of one group, with every address
but the gradients' already in ctypes arrays, and at the next step checks that everything the
plan was built from is still so, reading it in bulk through C-level `map`s instead of a
Python frame per tensor:

  the group's parameters      the same objects, in the same order
  which ones have a gradient  the same (None where it was None)
  the optimizer's state       `opt.state` the same dict, holding the same per-parameter dicts
                              (keys and values by identity), and in them the same tensors
  parameters and state        each tensor's data_ptr, type, shape, stride, dtype, device,
                              layout and inference flag as at planning (a `p.data = ...`
                              keeps the object but not its storage), checked in one C++
                              call by Dynamo's tensor guards (`_Same`)
  gradients                   plain strided tensors with their parameter's shape, stride,
                              dtype and device (what the planned path checks, per tensor)
  hyperparameters             read from the group as the planned path reads them; what the
                              kernel's spec takes from them must be the same, the values
                              themselves (lr, betas, ...) are the kernel's arguments
                              and are read every step

Anything else sends the group to the planned path, which then says why if it cannot run
compiled and builds a new cache entry. The trade: the cache holds references to the
parameter and state tensors of the last plan, so a replaced tensor stays alive until the
group's next step replaces the entry.
"""
from __future__ import annotations

import ctypes
import functools
import itertools
import operator
from typing import Any, Callable, Optional

import torch

_GRAD = operator.attrgetter("grad")
_SHAPE = operator.attrgetter("shape")
_DTYPE = operator.attrgetter("dtype")
_DEVICE = operator.attrgetter("device")
_LAYOUT = operator.attrgetter("layout")
_IS_NONE = functools.partial(operator.is_, None)
_PLAIN = frozenset((torch.Tensor, torch.nn.Parameter))
_STRIDED = frozenset((torch.strided,))


def _meta(ts: list) -> tuple:
    """Everything a planned call read from these tensors, one C-level pass per attribute."""
    return (list(map(torch.Tensor.data_ptr, ts)), list(map(type, ts)), list(map(_SHAPE, ts)),
            list(map(torch.Tensor.stride, ts)), list(map(_DTYPE, ts)), list(map(_DEVICE, ts)),
            list(map(_LAYOUT, ts)), list(map(torch.Tensor.is_inference, ts)))


_TensorGuards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
_TensorGuards = getattr(_TensorGuards, "TensorGuards", None)


class _Same:
    """Whether a list of tensors is still what it was: the same Python type, shape, stride,
    dtype, device, dispatch keys (layout, inference, requires_grad) and, where `ptrs`, data_ptr.

    Checked in one C++ call by Dynamo's own tensor guards (TensorGuards, the check its compiled
    frames run on their tensor inputs): for a group's hundred tensors about 10 us, against 80
    for one Python-level map per attribute (`_meta`, used where the guards are missing or
    refuse the tensors). Built and checked in the same thread-local state (grad mode,
    autocast), or the check fails and the group is planned afresh."""

    def __init__(self, ts: list, ptrs: bool):
        self.ptrs = list(map(torch.Tensor.data_ptr, ts)) if ptrs else None
        self.n = len(ts)
        self.guards = None
        if _TensorGuards is not None and ts:
            try:
                self.guards = _TensorGuards(*ts, dynamic_dims_sizes=[list(t.shape) for t in ts],
                                            dynamic_dims_strides=[list(t.stride()) for t in ts])
                if not self.guards.check(*ts):
                    self.guards = None
            except Exception:  # noqa: BLE001 - a torch without these guards: the maps below
                self.guards = None
        self.meta = None if self.guards is not None or not ts else _meta(ts)

    def __call__(self, ts: list) -> bool:
        if len(ts) != self.n:
            return False
        if self.ptrs is not None and list(map(torch.Tensor.data_ptr, ts)) != self.ptrs:
            return False
        if self.guards is not None:
            return self.guards.check(*ts)
        return self.meta is None or _meta(ts)[1:] == self.meta[1:]


class _CachedCall:
    """One kernel call of a cached group: every argument array but the gradients' is built."""

    def __init__(self, fn: Callable[..., int], symbol: str, kind: str, rows: list[int], arrays: list,
                 numels: Any, fresh: Any):
        self.fn, self.symbol, self.kind = fn, symbol, kind
        self.rows = rows          # positions in the group's list of parameters with a gradient
        self.arrays = arrays      # per tensor role, the ctypes pointer array; None for the gradients
        self.numels, self.fresh = numels, fresh

    def run(self, grads: list, scalars: tuple) -> None:
        n = len(self.rows)
        gs = grads if len(grads) == n else list(map(grads.__getitem__, self.rows))
        gptr = (ctypes.c_void_p * n)(*map(torch.Tensor.data_ptr, gs))
        a = self.arrays
        if self.kind == "sgd":
            rc = self.fn(n, a[0], gptr, a[2], self.fresh, self.numels, *scalars)
        else:
            rc = self.fn(n, a[0], gptr, *a[2:], self.numels, *scalars)
        if rc != 0:  # pragma: no cover - the kernels always return 0
            raise RuntimeError(f"bessemer: optimizer kernel {self.symbol} returned {rc}")


class GroupCache:
    """The cached update of one parameter group (see the module docstring)."""

    def __init__(self, opt: torch.optim.Optimizer, group: dict, spec_key: tuple, state_keys: tuple,
                 planned: list, extra_scalars: list):
        params = group["params"]
        self.group = group
        self.param_ids = list(map(id, params))
        grads = list(map(_GRAD, params))
        self.none = list(map(_IS_NONE, grads))
        self.has = [not x for x in self.none]
        with_grad = list(itertools.compress(params, self.has))
        self.spec_key = spec_key
        position = {id(p): i for i, p in enumerate(with_grad)}
        self.calls: list[_CachedCall] = []
        self.extra = extra_scalars        # per call: scalars after the group's (Adam's sqrt routine)
        static: list[torch.Tensor] = []
        for call, kernel in planned:
            rows = [position[id(p)] for p in call.columns[0]]
            n = len(rows)
            arrays = [None if r == 1 else (ctypes.c_void_p * n)(*[None if t is None else t.data_ptr() for t in col])
                      for r, col in enumerate(call.columns)]
            fresh = (ctypes.c_uint8 * n)(*call.fresh) if call.spec.kind == "sgd" else None
            self.calls.append(_CachedCall(kernel.fn, call.spec.symbol, call.spec.kind, rows, arrays,
                                          (ctypes.c_int64 * n)(*call.numels), fresh))
            static.extend(t for r, col in enumerate(call.columns) if r != 1 for t in col if t is not None)
        # the state read back in row order, as the check reads it
        self.state = opt.state
        self.state_dicts = [opt.state[p] for p in with_grad] if state_keys else []
        self.state_keys = state_keys
        self.getter = operator.itemgetter(*state_keys) if state_keys else None
        self.state_ids = self._state_ids()
        self.state_index = (list(map(id, opt.state.keys())), list(map(id, opt.state.values())))
        self.static = static
        self.static_same = _Same(static, ptrs=True)
        self.with_grad = with_grad
        # what each gradient must be: as at planning, where the planned path found it a plain
        # strided tensor with its parameter's shape, stride, dtype and device
        self.grads_same = _Same(list(itertools.compress(grads, self.has)), ptrs=False)

    def _state_ids(self) -> list:
        if self.getter is None:
            return []
        got = list(map(self.getter, self.state_dicts))
        if len(self.state_keys) > 1:
            got = list(itertools.chain.from_iterable(got))
        return list(map(id, got))

    def grads(self, group: dict, state: dict) -> Optional[list]:
        """This step's gradients (of the parameters that have one) when everything the cached
        calls depend on is as it was planned, else None (plan afresh)."""
        params = group["params"]
        if list(map(id, params)) != self.param_ids:
            return None
        grads = list(map(_GRAD, params))
        if list(map(_IS_NONE, grads)) != self.none:
            return None
        g = list(itertools.compress(grads, self.has))
        try:
            if self.state_keys:
                if (state is not self.state or list(map(id, state.keys())) != self.state_index[0]
                        or list(map(id, state.values())) != self.state_index[1]
                        or self._state_ids() != self.state_ids):
                    return None
            if not self.static_same(self.static):
                return None
            if not (set(map(type, g)) <= _PLAIN and set(map(_LAYOUT, g)) <= _STRIDED):
                return None
            if not self.grads_same(g):
                return None
        except (KeyError, RuntimeError, TypeError):   # a state entry gone, a tensor without storage
            return None
        return g

    def run(self, grads: list, scalars: tuple) -> None:
        for call, extra in zip(self.calls, self.extra):
            call.run(grads, scalars + extra)
        # the kernels wrote through raw pointers; tell autograd, as an in-place op would
        torch._C._increment_version(self.static + grads)
