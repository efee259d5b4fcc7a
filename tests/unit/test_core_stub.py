"""The hand-written `_core.pyi` names exactly what the compiled module exports, with the same
parameters (a light stubtest: the stub is parsed, the module introspected)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from array_vectorize import _core

STUB = Path(__file__).resolve().parents[2] / "hook_py" / "array_vectorize" / "_core.pyi"


def stub_items():
    tree = ast.parse(STUB.read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    names = {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    return functions, classes, names


def test_stub_matches_module():
    functions, classes, names = stub_items()
    public = {n for n in dir(_core) if not n.startswith("_")}
    assert public == set(functions) | classes | names
    for name, node in functions.items():
        stub_params = [a.arg for a in node.args.args]
        real_params = list(inspect.signature(getattr(_core, name)).parameters)
        assert stub_params == real_params, name
    for name in classes:
        assert isinstance(getattr(_core, name), type)
