"""The guards of a stored frame that torch cannot write down, checked by bessemer.

Dynamo's guard serialization (`CheckFunctionManager.serialize_guards`) refuses the
guards that compare an object's identity (ID_MATCH and the guards built on it:
FUNCTION_MATCH, CLASS_MATCH, MODULE_MATCH, BUILTIN_MATCH, CLOSURE_MATCH,
NN_MODULE) and cannot rebuild guards on the traced function's free variables (a
decorator's `func`). A stored frame must still be used only where every one of
them holds, so each is kept here as the guard's source expression (as Dynamo
writes it: `L['self'].act`, `G['MODE']`, `L['func'].__defaults__`) and a
description of its value that means the same thing in another process:

    a module               its name (sys.modules[name] is the value)
    a class, a function    module and qualified name resolving to the value itself,
                           plus the bytecode's digest for a Python function
    an enum member         its class (by name) and its member name
    a submodule            its path in the module the forward is called on
    a function made at run time (a closure)
                           module, qualified name, bytecode digest, defaults and the
                           description of every closure cell
    a plain value          its type and repr (None, bool, int, float, str, dtype, a
                           tuple or dict of those)
    a plain-data object    its class (by name) and every attribute of its __dict__,
    (a model's config)     each described so

A guard on a value none of these describes (a tensor in a global, an object of
another kind) makes the forward unstorable: Dynamo's ordinary path is taken, which
guards it in process. Of the guard kinds, identity (`is`), code identity
(CLOSURE_MATCH compares `__code__`), TYPE_MATCH, the length guards and the
constant guards are checked; any other kind on such a source makes the forward
unstorable too.

The first call of a loaded frame evaluates every expression and compares the
descriptions; where all agree, the objects found are bound and every later call
checks them as Dynamo's guards do (`is` for an identity, `==` for a constant),
through one generated function. The same function checks that every global the
frame's guards read is still the object it was at load: the frame runs with a
copy of the module's globals (torch builds its function so), and a global
rebound since must send the call to Dynamo's path, as a Dynamo guard would.
"""
from __future__ import annotations

import collections
import enum
import hashlib
import importlib
import inspect
import re
import sys
import types
from typing import Any, Callable, Mapping, Optional

import torch

# guard kinds that compare identity, or are built on a comparison of identity
_IDENTITY = {"ID_MATCH", "FUNCTION_MATCH", "CLASS_MATCH", "MODULE_MATCH", "BUILTIN_MATCH", "NN_MODULE",
             "DUPLICATE_INPUT"}
_CONSTANT = {"CONSTANT_MATCH", "EQUALS_MATCH", "BOOL_MATCH", "NONE_MATCH"}
_LENGTH = {"SEQUENCE_LENGTH", "LENGTH_CHECK", "DICT_LENGTH"}
_PLAIN = (bool, int, float, str, bytes, type(None), torch.dtype, torch.device)


class Unguardable(Exception):
    """A guard bessemer cannot check in another process (the message says which)."""


def code_digest(code: types.CodeType) -> str:
    """The bytecode, its plain constants, nested code and names: equal where the code is."""
    h = hashlib.sha256()
    h.update(code.co_code)
    h.update(repr([c for c in code.co_consts if isinstance(c, _PLAIN)]).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            h.update(code_digest(c).encode())
    h.update(repr((code.co_name, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)).encode())
    return h.hexdigest()[:32]


def _resolve(module: str, qualname: str, load: bool) -> Any:
    mod = importlib.import_module(module) if load else sys.modules.get(module)
    obj: Any = mod
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _by_name(v: Any, load: bool = False) -> Optional[tuple[str, str]]:
    """(module, name) under which v itself can be found again, or None."""
    module = getattr(v, "__module__", None)
    if not isinstance(module, str):
        return None
    for name in (getattr(v, "__qualname__", None), getattr(v, "__name__", None)):
        if not isinstance(name, str) or "<" in name:
            continue
        try:
            if _resolve(module, name, load) is v:
                return module, name
        except Exception:  # noqa: BLE001 - not reachable under this name
            continue
    return None


def _submodule_path(owner: Any, v: Any) -> Optional[str]:
    if not isinstance(owner, torch.nn.Module):
        return None
    for name, m in owner.named_modules(remove_duplicate=False):
        if m is v:
            return name
    return None


def describe(v: Any, owner: Any, where: str, depth: int = 0) -> tuple:
    """What v is, in terms that mean the same in another process (see the module docstring)."""
    if isinstance(v, _PLAIN):
        return ("const", type(v).__qualname__, repr(v))
    if isinstance(v, (tuple, list)) and len(v) <= 64 and depth < 3:
        return (type(v).__name__, tuple(describe(x, owner, where, depth + 1) for x in v))
    if isinstance(v, types.CodeType):    # CLOSURE_MATCH guards a function's __code__ as a constant
        return ("code object", v.co_filename, v.co_qualname, code_digest(v))
    if isinstance(v, types.ModuleType):
        if sys.modules.get(v.__name__) is not v:
            raise Unguardable(f"{where}: module {v.__name__} is not the one imported under its name")
        return ("module", v.__name__)
    if isinstance(v, enum.Enum):
        return ("enum", describe(type(v), owner, where, depth + 1), v.name)
    if isinstance(v, torch.nn.Module):
        path = _submodule_path(owner, v)
        if path is None:
            raise Unguardable(f"{where}: a module outside the one compiled ({type(v).__qualname__})")
        return ("submodule", path)
    named = _by_name(v)
    if named is not None:
        code = getattr(v, "__code__", None)
        return ("named", *named, code_digest(code) if isinstance(code, types.CodeType) else "")
    if isinstance(v, types.FunctionType) and depth < 3:
        cells = []
        for cell in v.__closure__ or ():
            try:
                cells.append(describe(cell.cell_contents, owner, where, depth + 1))
            except ValueError:   # an empty cell
                cells.append(("empty",))
        return ("function", v.__module__, v.__qualname__, code_digest(v.__code__),
                describe(v.__defaults__, owner, where, depth + 1),
                describe(sorted((v.__kwdefaults__ or {}).items()), owner, where, depth + 1), tuple(cells))
    if type(v) is dict and len(v) <= 256 and depth < _DATA_DEPTH:
        return ("dict", tuple((describe(k, owner, where, depth + 1), describe(x, owner, where, depth + 1))
                              for k, x in v.items()))
    state = _data_state(v, depth)
    if state is not None:
        return ("data", describe(type(v), owner, where, depth + 1),
                tuple((k, describe(x, owner, where, depth + 1)) for k, x in state))
    raise Unguardable(f"{where}: a {type(v).__qualname__} cannot be named in another process")


# how deep a plain-data object (a model's config) is described: a config inside a config
_DATA_DEPTH = 4


def _data_state(v: Any, depth: int) -> Optional[list]:
    """The attributes of a plain-data object (a model's config: an object of a class found by
    name whose state is its __dict__ of describable values), in their order; None for any
    other object. Such an object in another process is the same where its class and every
    attribute are: what a trace reads from it (attributes, methods of its class) is then
    the same, which is what an identity guard on it stands for in one process."""
    cls = type(v)
    if (depth >= _DATA_DEPTH or isinstance(v, (torch.Tensor, torch.nn.Module, type, types.FunctionType))
            or not _state_in_dict(cls) or _by_name(cls) is None):
        return None
    d = getattr(v, "__dict__", None)
    if not isinstance(d, dict) or len(d) > 512 or any(not isinstance(k, str) for k in d):
        return None
    return list(d.items())


class _Plain:
    pass


def _state_in_dict(cls: type) -> bool:
    """Does an instance of cls keep all its state in its __dict__? Not where a base written in
    C adds fields (functools.partial's function and arguments, a dict subclass's items: the
    instance is larger than a plain object) nor where a class has __slots__."""
    return (cls.__basicsize__ <= _Plain.__basicsize__ and cls.__itemsize__ == 0
            and not any("__slots__" in vars(c) for c in cls.__mro__))


def _kinds(entry) -> list[str]:
    kinds = []
    for t in dict.fromkeys((entry.guard_type, *entry.derived_guard_types)):
        if t in _IDENTITY:
            kinds.append("is")
        elif t == "CLOSURE_MATCH":
            kinds.append("code" if isinstance(entry.value, types.FunctionType) else "is")
        elif t == "TYPE_MATCH":
            kinds.append("type")
        elif t in _LENGTH:
            kinds.append("len")
        elif t in _CONSTANT:
            kinds.append("eq")
        else:
            raise Unguardable(f"{entry.orig_guard.name}: a {t} guard")
    return kinds


def _expected(kind: str, v: Any, owner: Any, where: str) -> Any:
    if kind == "is":
        return describe(v, owner, where)
    if kind == "code":
        if not isinstance(v, types.FunctionType):
            return ("not a function",)
        return ("code", v.__module__, v.__qualname__, code_digest(v.__code__))
    if kind == "type":
        return describe(type(v), owner, where)
    if kind == "len":
        return len(v)
    if not isinstance(v, (*_PLAIN, types.CodeType)):
        raise Unguardable(f"{where}: a constant guard on a {type(v).__qualname__}")
    return describe(v, owner, where)


def record(entries: list, owner: Any, free: set[str]) -> list[tuple[str, str, Any]]:
    """The guards of `entries` (Dynamo's filter entries, those it will not store) as
    (expression, kind, description) at capture. Raises Unguardable."""
    out = []
    for e in entries:
        name = e.orig_guard.name
        if not e.has_value:
            raise Unguardable(f"{name}: a {e.guard_type} guard on a value that cannot be read")
        for kind in _kinds(e):
            out.append((name, kind, _expected(kind, e.value, owner, name)))
    return list(dict.fromkeys(out))


def global_roots(entries: list) -> set[str]:
    """The globals (G['x']) every guard entry reads."""
    roots = set()
    for e in entries:
        for m in re.finditer(r"\bG\['([^']+)'\]", e.orig_guard.name):
            roots.add(m.group(1))
    return roots


def _closure_vars() -> dict:
    from torch._dynamo.guards import _get_closure_vars
    return dict(_get_closure_vars())


class FrameGuards:
    """The recorded guards of one stored frame, bound to this process's objects at the first
    call (`bind`), then checked at every call (`__call__`)."""

    def __init__(self, guards: list, roots: list[str], fn: types.FunctionType, owner: Any,
                 aliases: Mapping[str, Any]):
        self.guards, self.fn, self.owner = guards, fn, owner
        self.live = fn.__globals__
        # the names Dynamo installs in the frame's globals (modules imported under an alias)
        self.globals = collections.ChainMap(self.live, dict(aliases))
        self.roots = [r for r in roots if r in self.live]
        code = fn.__code__
        n = (code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)
             + bool(code.co_flags & inspect.CO_VARKEYWORDS))
        read = {m.group(1) for g in guards for m in re.finditer(r"\bL\['([^']+)'\]", g[0])}
        # the call's arguments are bound only where a guard reads one (not `self`, held here)
        self.needs_args = bool((set(code.co_varnames[:n]) - {"self"}) & read)
        self.check: Optional[Callable[..., bool]] = None

    def locals(self, frame, args: tuple, kwargs: dict, prepared: Optional[dict] = None) -> dict:
        """The frame's locals for the check: the forward's own closure as it is now (not the
        cells the frame was loaded with) and, where a guard reads one, its bound arguments
        (`prepared`: the frame's locals as prepare_f_locals gives them, if already made)."""
        if not self.needs_args:
            f_locals = {}
        elif prepared is not None:
            f_locals = dict(prepared)
        else:
            f_locals = frame.prepare_f_locals(*args, **kwargs)
        for name, cell in zip(self.fn.__code__.co_freevars, self.fn.__closure__ or ()):
            try:
                f_locals[name] = cell.cell_contents
            except ValueError:
                f_locals.pop(name, None)
        if self.owner is not None:
            f_locals["self"] = self.owner
        return f_locals

    def bind(self, f_locals: dict) -> Optional[str]:
        """Compare every guard with this process's objects; return None where all hold (the
        objects found are kept for `finish`), else the first guard that does not."""
        scope = _closure_vars()
        scope.update(L=f_locals, G=self.globals)
        parts, bound = [], {}
        for i, (expr, kind, want) in enumerate(self.guards):
            try:
                v = eval(expr, scope)   # noqa: S307 - Dynamo's own source expression, from our own file
                got = _expected(kind, v, self.owner, expr)
            except Exception as e:  # noqa: BLE001 - a source that cannot be read: the guard fails
                return f"{expr} ({type(e).__name__})"
            if got != want:
                return f"{expr} ({kind})"
            o = f"___b{i}"
            if kind == "is":
                bound[o] = v
                parts.append(f"({expr}) is {o}")
            elif kind == "code":
                bound[o] = v.__code__
                parts.append(f"({expr}).__code__ is {o}")
            elif kind == "type":
                bound[o] = type(v)
                parts.append(f"type({expr}) is {o}")
            elif kind == "len":
                parts.append(f"len({expr}) == {len(v)}")
            else:
                bound[o], bound[o + "t"] = v, type(v)
                parts.append(f"type({expr}) is {o}t and ({expr}) == {o}")
        self._parts, self._bound = parts, bound
        return None

    def finish(self, snapshot: Mapping[str, Any]) -> Optional[str]:
        """Build the per-call check, given the globals the frame runs with (`snapshot`): each
        global a guard reads must stay the object it is in both."""
        parts, bound = list(self._parts), dict(self._bound)
        for j, name in enumerate(self.roots):
            if name not in snapshot:
                continue
            if self.live.get(name) is not snapshot[name]:
                return f"G['{name}'] (rebound)"
            o = f"___g{j}"
            bound[o] = snapshot[name]
            parts.append(f"___live.get({name!r}) is {o}")
        # G['x'] as the ChainMap reads it, without its Python-level lookup at every call: a
        # global of the module from the live globals, a name Dynamo installed (an alias, not
        # among them) as the object it stands for; one neither holds still fails the check
        aliases = self.globals.maps[1]

        def resolve(m: "re.Match") -> str:
            name = m.group(1)
            if name in self.live:
                return f"___live[{name!r}]"
            if name in aliases:
                bound[f"___a_{len(bound)}"] = aliases[name]
                return f"___a_{len(bound) - 1}"
            return m.group(0)
        parts = [re.sub(r"\bG\['([^']+)'\]", resolve, p) for p in parts]
        scope = _closure_vars()
        scope.update(bound, ___live=self.live)
        body = " and ".join(parts) or "True"
        src = (f"def ___check(L, G):\n    try:\n        return bool({body})\n"
               f"    except Exception:\n        return False\n")
        exec(compile(src, "<bessemer frame guards>", "exec"), scope)   # noqa: S102 - generated above
        check, g = scope["___check"], self.globals
        self.check = lambda f_locals: check(f_locals, g)
        return None


class _Arg:
    """A placeholder for the call's positional argument `i` or keyword argument `key`, bound once
    per call shape to learn where each of the frame's locals comes from."""
    __slots__ = ("i", "key")

    def __init__(self, i: int = -1, key: Optional[str] = None):
        self.i, self.key = i, key


class CallBinder:
    """The frame's locals for a call, as torch's AOTCompiledFunction.prepare_f_locals makes them
    (its loaded closure's cells, then `signature.bind(*args, **kwargs)` with the defaults
    applied), without binding the signature at every call.

    `inspect.Signature.bind` is a few dozen Python-level calls. Where each bound name's value
    comes from (which positional argument, which keyword, a default, the collected extras of
    *args / **kwargs) depends only on the call's shape: how many positional arguments and which
    keyword names, in order. So the signature is bound once per shape, with placeholders, and
    that recipe fills later calls of the shape. The first call of each shape is also bound by
    torch's own prepare_f_locals and the two compared (names and identity of every value); a
    shape where they differ, or that the signature refuses, keeps torch's binding (which raises
    its own TypeError for a call the forward does not take)."""

    def __init__(self, frame: Any):
        art = frame._artifacts
        self.frame, self.signature = frame, art.signature
        env = art.runtime_env
        self.cells = list(zip(env.bytecode.co_freevars, env.closure)) if env.closure else []
        self.recipes: dict[tuple, Optional[list]] = {}

    def _recipe(self, n: int, keys: tuple) -> Optional[list]:
        try:
            bound = self.signature.bind(*[_Arg(i=i) for i in range(n)], **{k: _Arg(key=k) for k in keys})
        except TypeError:
            return None
        bound.apply_defaults()
        params = self.signature.parameters
        recipe = []
        for name, v in bound.arguments.items():
            kind = params[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                recipe.append((name, "t", tuple(a.i for a in v)))
            elif kind is inspect.Parameter.VAR_KEYWORD:
                recipe.append((name, "d", tuple(a.key for a in v.values())))
            elif isinstance(v, _Arg):
                recipe.append((name, "a", v.i) if v.key is None else (name, "k", v.key))
            else:
                recipe.append((name, "v", v))     # the default itself, as apply_defaults gives it
        return recipe

    def _fill(self, recipe: list, args: tuple, kwargs: dict) -> dict:
        out = {}
        for name, cell in self.cells:
            out[name] = cell.cell_contents
        for name, how, src in recipe:
            if how == "a":
                out[name] = args[src]
            elif how == "k":
                out[name] = kwargs[src]
            elif how == "v":
                out[name] = src
            elif how == "t":
                out[name] = tuple(args[i] for i in src)
            else:
                out[name] = {k: kwargs[k] for k in src}
        return out

    def __call__(self, args: tuple, kwargs: dict) -> dict:
        """The frame's locals for this call; raises TypeError where the forward does not take it."""
        shape = (len(args), tuple(kwargs))
        try:
            recipe = self.recipes[shape]
        except KeyError:
            recipe = self._recipe(*shape)
            theirs = self.frame.prepare_f_locals(*args, **kwargs)    # raises for a call it refuses
            if recipe is not None:
                ours = self._fill(recipe, args, kwargs)
                if list(ours) != list(theirs) or not all(_same(ours[k], v) for k, v in theirs.items()):
                    recipe = None
            self.recipes[shape] = recipe
            return theirs
        if recipe is None:
            return self.frame.prepare_f_locals(*args, **kwargs)
        return self._fill(recipe, args, kwargs)


def _same(a: Any, b: Any) -> bool:
    """a is b, or both are the same kind of tuple or dict holding the same objects."""
    if a is b:
        return True
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(x is y for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return list(a) == list(b) and all(a[k] is b[k] for k in a)
    return False
