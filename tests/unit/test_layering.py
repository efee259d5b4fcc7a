"""Import boundaries (reference: tests/unit/test_layering.py): the runtime helpers are a
stdlib-only leaf, the rest of the package reaches them only through the registry seam, and the
seam provides exactly the helpers of the core's contract (``_core.RUNTIME_HELPERS``), which are
the only helpers generated code calls."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import array_vectorize
from array_vectorize import _core
from array_vectorize.runtime.arith import BINARY_OPS, UNARY_OPS
from array_vectorize.runtime.registry import RUNTIME_HELPERS

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "hook_py" / "array_vectorize"


def imports(path: Path) -> list[tuple[int, str]]:
    """(level, module) of every import in a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.extend((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or ""))
    return out


def test_runtime_is_a_stdlib_only_leaf():
    allowed_third_party = {"array_api_compat"}
    runtime = PACKAGE / "runtime"
    paths = sorted(runtime.rglob("*.py"))
    assert runtime / "_generated" / "special_tables.py" in paths
    for path in paths:
        rel = path.relative_to(runtime).as_posix()
        depth = len(path.relative_to(runtime).parts)  # 1 in runtime/, 2 in runtime/_generated/
        for level, module in imports(path):
            if (rel, level, module) == ("registry.py", 2, ""):
                continue  # `from .. import _core`: the helper contract, from the compiled core
            if level > 0:
                assert level <= depth, f"{rel} imports outside runtime/ ({'.' * level}{module})"
                continue
            top = module.split(".")[0]
            assert top in sys.stdlib_module_names or top in allowed_third_party, f"{rel} imports {module}"


def test_package_reaches_runtime_only_through_the_registry():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in ("runtime", "fuzz"):
            continue
        for level, module in imports(path):
            name = module if level == 0 else "." * level + module
            if "runtime" in name.split("."):
                assert name.endswith("runtime.registry"), f"{rel} imports {name}; use runtime.registry"


def test_the_registry_binds_exactly_the_cores_helper_contract():
    contract = _core.RUNTIME_HELPERS
    assert contract, "the core exports no helper contract"
    assert {key: name for key, (name, _) in RUNTIME_HELPERS.items()} == {k: h["name"] for k, h in contract.items()}
    # The operation keys codegen may pass are the ones the helpers accept.
    assert set(contract["binary"]["ops"]) == BINARY_OPS
    assert set(contract["unary"]["ops"]) == UNARY_OPS


def test_generated_code_calls_only_contract_helpers():
    """Every ``_vec_`` global a golden case's generated code reads is a helper of the contract (or
    the exact body the entry calls)."""
    helpers = {h["name"] for h in _core.RUNTIME_HELPERS.values()}
    expected = sorted((REPO / "tests" / "golden" / "expected").glob("*.py"))
    assert expected
    called = set()
    for path in expected:
        tree = ast.parse(path.read_text())
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        called |= {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and node.id.startswith("_vec_") and node.id not in defined
        }
    assert called and called <= helpers, called - helpers


def test_compiler_core_has_no_python_dependency():
    # Only the binding module may use PyO3 (the stages run under `cargo test` without Python).
    for path in sorted((REPO / "src").rglob("*.rs")):
        if path.name == "python.rs":
            continue
        assert "pyo3" not in path.read_text(), f"{path.relative_to(REPO)} uses pyo3"


def test_public_interface():
    for name in ("vectorize", "VectorizationError", "stats", "BUILD_ID", "CompileDisabledError"):
        assert hasattr(array_vectorize, name)
    assert set(array_vectorize.stats()) >= {"compiled", "disk_cache_hits", "precompiled_hits"}


def test_importing_the_package_loads_nothing_heavy():
    """`import array_vectorize.auto` must stay cheap: it runs first in every process that uses the
    hook. The runtime, array_api_compat, linecache (tokenize, re), inspect and typing load only
    when a function is compiled or materialized."""
    import subprocess

    probe = (
        "import sys; import array_vectorize.auto; "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'array_api_compat', 'linecache', 'tokenize', 're', 'inspect', 'typing', 'ast', 'numpy'} "
        "or m.startswith('array_vectorize.runtime'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


def test_importing_the_package_loads_no_python_module_of_the_standard_library():
    """What `import array_vectorize.auto` adds to a bare interpreter is array_vectorize's own
    modules and modules built into the interpreter or written in C (`math`, `gc`, `marshal`),
    plus `__future__` (which `from __future__ import annotations` imports): `enum` and `copy`,
    with the `collections`, `functools` and `weakref` they import, once made two thirds of its
    cost (D14's uniform values need them only for a module that holds one, which has imported
    `enum` itself)."""
    import subprocess

    probe = (
        "import sys; before = set(sys.modules); import array_vectorize.auto; "
        "print(' '.join(sorted(n for n in set(sys.modules) - before "
        "if n.partition('.')[0] != 'array_vectorize' and n != '__future__' "
        "and (getattr(sys.modules[n], '__file__', None) or '').endswith('.py'))))"
    )
    out = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []
