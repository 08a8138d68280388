"""The package's layout as a rule: which module may import which, and docs that name real files.

Every module under bessemer/ is parsed with `ast` (no import runs): each `import` and `from ...
import` at any depth, function-local ones included, relative ones resolved against the module's
package. An import names a module of the tree when it resolves to one: `from bessemer.compiler
import pipeline` is an edge to bessemer.compiler.pipeline, `from bessemer.config import X` an edge
to bessemer.config, `import torch` no edge. The parent packages Python runs on the way (every
`__init__` above the imported module) are not edges of their own: an `__init__` that imports what
its package holds would otherwise close a circle with every module below it that imports a
sibling through the package.

An import of a package the module itself lies in (`import bessemer` in bessemer/bench/runner.py to
call `bessemer.compile`, `from .. import __version__` in bessemer/jobs/) is no edge in either graph:
Python has run that package's `__init__` before the module in any case, so the import adds no
order, and the top-level package's lazy names (`bessemer.compile`, `bessemer.PyTorch`, resolved in
its `__getattr__` when first used) would otherwise put every user of the public API in one circle
with the API's own modules. The compiler may still not import the top-level package (see
COMPILER_MAY_IMPORT): that rule is about where the compiler's code comes from, not about order.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "bessemer"
COMPILER = "bessemer.compiler"

# What the compiler may import from the rest of bessemer: the config it is handed
# (TrainingCompilerConfig, resolve_config) and the file helpers its caches write with.
# Everything else outside bessemer/compiler/ (api, jobs, bench, tune, zoo, cli, the
# top-level package and its __version__) is a caller of the compiler, never a dependency.
COMPILER_MAY_IMPORT = {"bessemer.config", "bessemer.fsutil"}

# codegen/ renders and builds a schedule; it knows nothing of where graphs come from
# (capture/, partition/) or how the generated program is loaded and called (runtime/).
CODEGEN_MUST_NOT_IMPORT = ("capture", "partition", "runtime")

# The folders that count as one node in the folder graph; a module outside them
# (bessemer/api.py, bessemer/compiler/pipeline.py, ...) is a node of its own.
FOLDERS = ("bessemer.bench", "bessemer.tune", "bessemer.jobs", "bessemer.zoo") + tuple(
    f"{COMPILER}.{p.name}" for p in sorted((PKG / "compiler").iterdir())
    if p.is_dir() and (p / "__init__.py").exists())


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The longest prefix of a dotted name that is a module of the tree (None: not ours)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(name: str, path: Path) -> list[tuple[str, int]]:
    """(imported module of the tree, line) for every import statement in a module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # `from pkg import mod` imports the module pkg.mod; `from mod import name` imports mod
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source
                       for a in node.names]
        else:
            continue
        for t in targets:
            mod = _resolve(t)
            if mod is not None and mod != name:
                found.append((mod, node.lineno))
    return found


IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def _encloses(package: str, name: str) -> bool:
    return name.startswith(package + ".")


# the edges of the module graph: what each module imports, less the packages it lies in
EDGES = {n: {d for d, _ in imps if not _encloses(d, n)} for n, imps in IMPORTS.items()}


def _all_imported_names(path: Path) -> list[tuple[str, int]]:
    """Every module name a file imports (ours or not), for the rules on third-party imports."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append((node.module, node.lineno))
    return names


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of a directed graph as its path (first node repeated at the end), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in edges}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        color[n] = GREY
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if color.get(m, WHITE) == GREY:
                return stack[stack.index(m):] + [m]
            if color.get(m, WHITE) == WHITE:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        color[n] = BLACK
        return None

    for n in sorted(edges):
        if color[n] == WHITE:
            found = visit(n)
            if found:
                return found
    return None


def _folder(name: str) -> str:
    for f in FOLDERS:
        if name == f or name.startswith(f + "."):
            return f
    return name


def _where(src: str, dst: str, *, folders: bool = False) -> str:
    """The import lines behind an edge, for a failure message."""
    key = _folder if folders else (lambda n: n)
    lines = [f"{s}:{line}" for s, imps in IMPORTS.items() for d, line in imps
             if key(s) == src and key(d) == dst]
    return ", ".join(lines[:4])


def test_no_cycle_between_modules():
    cycle = _cycle(EDGES)
    assert cycle is None, "import cycle: " + " -> ".join(cycle) + "\n" + "\n".join(
        f"  {a} -> {b} at {_where(a, b)}" for a, b in zip(cycle, cycle[1:]))


def test_no_cycle_between_folders():
    edges: dict[str, set[str]] = {}
    for n, imported in EDGES.items():
        src = _folder(n)
        edges.setdefault(src, set())
        for d in imported:
            dst = _folder(d)
            # a module importing its own folder's modules (or its __init__) is no edge
            if dst != src:
                edges[src].add(dst)
    cycle = _cycle(edges)
    assert cycle is None, "folder cycle: " + " -> ".join(cycle) + "\n" + "\n".join(
        f"  {a} -> {b} at {_where(a, b, folders=True)}" for a, b in zip(cycle, cycle[1:]))


def test_compiler_imports_only_config_and_fsutil_from_outside():
    bad = [f"{n}:{line} imports {d}" for n, imps in IMPORTS.items()
           if n == COMPILER or n.startswith(COMPILER + ".")
           for d, line in imps
           if not (d == COMPILER or d.startswith(COMPILER + ".")) and d not in COMPILER_MAY_IMPORT]
    assert not bad, "\n".join(bad)


def test_codegen_does_not_import_capture_partition_runtime():
    banned = tuple(f"{COMPILER}.{f}" for f in CODEGEN_MUST_NOT_IMPORT)
    bad = [f"{n}:{line} imports {d}" for n, imps in IMPORTS.items()
           if n.startswith(f"{COMPILER}.codegen")
           for d, line in imps if d.startswith(banned)]
    assert not bad, "\n".join(bad)


def _is_python(path: Path) -> bool:
    first = path.read_bytes().split(b"\n", 1)[0]
    return path.suffix == ".py" or (first.startswith(b"#!") and b"python" in first)


def _python_outside_tests() -> list[Path]:
    """The package's modules, the examples and the scripts (by extension or a python #! line)."""
    scripts = [p for p in sorted((ROOT / "scripts").iterdir()) if p.is_file() and _is_python(p)]
    return [*MODULES.values(), *sorted((ROOT / "examples").rglob("*.py")), *scripts]


def test_no_mock_outside_tests():
    files = _python_outside_tests()
    assert len(files) > len(MODULES)
    bad = [f"{p.relative_to(ROOT)}:{line} imports {imp}" for p in files
           for imp, line in _all_imported_names(p)
           if imp.split(".")[0] in ("unittest", "mock")]
    assert not bad, "\n".join(bad)


def test_every_compiler_package_has_a_docstring():
    missing = [str(p.relative_to(ROOT)) for p in sorted((PKG / "compiler").rglob("__init__.py"))
               if not ast.get_docstring(ast.parse(p.read_text()))]
    assert not missing, "packages without a module docstring: " + ", ".join(missing)


def test_the_rules_see_imports():
    """The parser finds what the rules are about: a relative, a function-local and a `from
    package import module` import, so an empty edge list cannot pass the tests above."""
    edges = {n: {d for d, _ in imps} for n, imps in IMPORTS.items()}
    # bessemer/__init__.py: `from .config import ...` at the top, `from . import api` in a function
    assert {"bessemer.config", "bessemer.api"} <= edges["bessemer"]
    assert f"{COMPILER}.pipeline" in set().union(*(edges[n] for n in edges
                                                   if n.startswith(f"{COMPILER}.capture")))
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


# -- the docs name files that exist ------------------------------------------------------------
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# A path in the docs: folders and a file name with an extension, starting at a folder of this
# tree (bessemer/, the compiler's folders, docs/, tests/, ...). Output folders a command writes
# (bench-out/, a job's folder) start elsewhere and are not checked.
_FIRST = ("bessemer", "compiler", "capture", "partition", "lowering", "ir", "passes", "codegen",
          "runtime", "bench", "tune", "jobs", "zoo", "docs", "tests", "scripts", "examples")
_PATH = re.compile(r"(?<![\w./:~<>-])((?:%s)/(?:[\w.-]+/)*[\w.-]+\.(?:py|md|txt|toml|png|sh|json))(?![\w/])"
                   % "|".join(_FIRST))
# Where a path in the docs may be relative to: the repository, the package, the compiler
# (`passes/simplify.py`), the docs folder (links between pages).
_BASES = (ROOT, PKG, PKG / "compiler", ROOT / "docs")

def _doc_paths() -> list[tuple[str, int, str]]:
    found = []
    for doc in DOCS:
        for i, line in enumerate(doc.read_text().splitlines(), 1):
            found += [(doc.name, i, m.group(1)) for m in _PATH.finditer(line)]
            # markdown links between pages: [text](memory.md#anchor)
            found += [(doc.name, i, m.group(1)) for m in re.finditer(r"\]\(([\w.-]+\.md)(?:#[\w-]*)?\)", line)]
    return found


def test_paths_in_the_docs_exist():
    paths = _doc_paths()
    assert len(paths) > 50, "the pattern finds the docs' paths"     # README and design.md name dozens
    missing = [f"{doc}:{line}: {p}" for doc, line, p in paths
               if not any((base / p).exists() for base in _BASES)]
    assert not missing, "paths in the docs that are not in the tree:\n" + "\n".join(missing)


def test_the_docs_path_pattern():
    line = ("see bessemer/compiler/passes/memory.py, `passes/fuse.py`, [x](docs/memory.md#a), "
            "https://x.org/docs/y.py, bench-out/results.md and ~/.cache/bessemer/x.py")
    assert [m.group(1) for m in _PATH.finditer(line)] == [
        "bessemer/compiler/passes/memory.py", "passes/fuse.py", "docs/memory.md"]
