"""Shape of the Python package (`hook_py/array_vectorize/`), as tests/unit/test_rust_layering.py
checks the Rust core: no import circle between its modules; and no hand-written Python file of
the repository (the package, the build backend, tests, benchmarks, tools, examples) over 800
lines, nor a function over 120 lines unless the line before it (or before its decorators) says
why (``# long: ...``), as the Rust check asks ``// long:``.

Every import statement counts, wherever it is: inside a function (an import made late is still
a dependency, and a circle hidden that way is still a circle) and under ``if TYPE_CHECKING:``.
``from . import x`` depends on the module ``x`` when there is one, else on the package
``__init__`` that defines the name; ``from .m import y`` depends on ``m`` (on ``m.y`` when that is
a module). That importing ``a.b`` first runs ``a/__init__.py`` is not counted: every submodule
would otherwise depend on its package's ``__init__``, which imports its submodules by design.
Generated files live under a ``_generated/`` folder and are exempt from the line limit.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from test_rust_layering import find_cycle

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "hook_py" / "array_vectorize"
ROOT = "array_vectorize"
MAX_FILE_LINES = 800
MAX_FN_LINES = 120

#: Hand-written files over the limit (paths from the repository's root), each with the reason
#: (the test fails once one is not).
KNOWN_LONG_FILES: dict[str, str] = {}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``hook/compile.py`` -> ``array_vectorize.hook.compile``; ``hook/__init__.py`` ->
    ``array_vectorize.hook``."""
    parts = path.relative_to(package).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((ROOT, *parts))


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every Python module of the package, and the compiled core (its stub stands for it)."""
    found = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    for stub in package.rglob("*.pyi"):
        found.setdefault(module_name(stub, package), stub)
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of the package that `path` (module `name`) imports, anywhere in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name.split(".")[0] == ROOT)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
                if target.split(".")[0] != ROOT:
                    continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in known else target)
    return {m for m in out if m in known and m != name}


def dependencies(package: Path = PACKAGE) -> dict[str, set[str]]:
    mods = modules(package)
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items() if path.suffix == ".py"}


def long_files(paths: list[Path], root: Path = REPO) -> list[str]:
    """Those of `paths` (Python files under `root`) over the limit, generated files (under a
    ``_generated/`` folder) and KNOWN_LONG_FILES aside."""
    out = []
    for path in sorted(paths):
        rel = path.relative_to(root).as_posix()
        if "_generated" in path.relative_to(root).parts or rel in KNOWN_LONG_FILES:
            continue
        n = len(path.read_text().splitlines())
        if n > MAX_FILE_LINES:
            out.append(f"{rel}: {n} lines")
    return out


def long_functions(paths: list[Path], root: Path = REPO) -> list[str]:
    """Functions of `paths` over MAX_FN_LINES whose first line (its first decorator's, if any)
    does not follow a ``# long: <why>`` line."""
    out = []
    for path in sorted(paths):
        if "_generated" in path.relative_to(root).parts:
            continue
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FN_LINES and not (first > 1 and lines[first - 2].strip().startswith("# long:")):
                out.append(f"{path.relative_to(root).as_posix()}:{node.lineno} {node.name}: {length} lines")
    return out


def repository_python_files() -> list[Path]:
    """Every Python file the repository tracks (git's list: build products and virtual
    environments are not the project's files)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [REPO / name for name in listed.decode().split("\0") if name]


def test_dependencies_are_read():
    deps = dependencies()
    assert "array_vectorize._core" in deps["array_vectorize.api"]
    assert "array_vectorize.emit" in deps["array_vectorize.api"]
    # Imports inside functions count (api compiles through environment only when it compiles).
    assert "array_vectorize.environment" in deps["array_vectorize.api"]
    assert "array_vectorize.runtime.registry" in deps["array_vectorize.emit"]
    assert "array_vectorize.hook.cachefile" in deps["array_vectorize.hook"]
    assert "array_vectorize.fuzz.oracle_ieee" in deps["array_vectorize.fuzz.oracle"]


def test_no_import_circle():
    cycle = find_cycle(dependencies())
    assert cycle is None, f"import circle: {' -> '.join(cycle)}"


def test_no_hand_written_file_over_the_limit():
    files = repository_python_files()
    assert PACKAGE / "api.py" in files and REPO / "tests" / "unit" / "test_python_layering.py" in files
    too_long = long_files(files)
    assert not too_long, f"files over {MAX_FILE_LINES} lines: {too_long}"
    for rel in KNOWN_LONG_FILES:
        assert len((REPO / rel).read_text().splitlines()) > MAX_FILE_LINES, f"{rel} is no longer long: drop it"


def test_no_function_over_the_limit_without_a_reason():
    too_long = long_functions(repository_python_files())
    assert not too_long, f"functions over {MAX_FN_LINES} lines need `# long: <why>` above them: {too_long}"


def test_the_checks_can_fail(tmp_path):
    pkg = tmp_path / "array_vectorize"
    (pkg / "sub" / "_generated").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from .. import a\n")
    (pkg / "sub" / "_generated" / "table.py").write_text("X = 1\n" * (MAX_FILE_LINES + 1))
    (pkg / "c.py").write_text("x = 1\n" * (MAX_FILE_LINES + 1))
    deps = dependencies(pkg)
    assert deps["array_vectorize.a"] == {"array_vectorize.sub.b"}
    assert deps["array_vectorize.sub.b"] == {"array_vectorize.a"}
    assert find_cycle(deps) == ["array_vectorize.a", "array_vectorize.sub.b", "array_vectorize.a"]
    assert long_files(list(pkg.rglob("*.py")), pkg) == [f"c.py: {MAX_FILE_LINES + 1} lines"]
    body = "".join(f"    x = {i}\n" for i in range(MAX_FN_LINES))
    (pkg / "d.py").write_text(f"import functools\n\n\n@functools.cache\ndef g():\n{body}\n\n# long: a table\ndef h():\n{body}")
    assert long_functions([pkg / "d.py"], pkg) == [f"d.py:5 g: {MAX_FN_LINES + 1} lines"]
