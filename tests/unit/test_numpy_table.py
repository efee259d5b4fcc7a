"""The NumPy table of docs/numpy.md is the compiler's own (D16, src/lower/calls/numpy/table.rs,
one source of truth): `tools/numpy_table.py --check` fails when they differ, and the decorator
describes NumPy's functions by the table's names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from array_vectorize import _core
from array_vectorize.environment import EnvBuilder

REPO = Path(__file__).resolve().parents[2]


def test_the_docs_table_is_generated_from_the_compilers_table():
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "numpy_table.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    doc = (REPO / "docs" / "numpy.md").read_text()
    for name, entry in _core.NUMPY_NAMES.items():
        assert f"| `{name}` | {entry['lowers_to']} | {entry['semantics']} |" in doc


def test_the_check_fails_when_the_docs_differ(tmp_path, monkeypatch):
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import numpy_table
    finally:
        sys.path.pop(0)
    doc = tmp_path / "numpy.md"
    doc.write_text((REPO / "docs" / "numpy.md").read_text().replace("`sqrt`", "`sqrtt`", 1))
    monkeypatch.setattr(numpy_table, "DOC", doc)
    assert numpy_table.main(["--check"]) == 1
    assert numpy_table.main([]) == 0 and numpy_table.main(["--check"]) == 0


def test_the_decorator_describes_numpys_functions_by_the_tables_names():
    builder = EnvBuilder()
    for name in _core.NUMPY_NAMES:
        value = getattr(np, name, None)
        if value is None or isinstance(value, float):
            continue  # a constant (frozen as a number) or a name this NumPy lacks
        tag, described = builder.describe("v", value)
        assert tag == "numpy_member" and described in _core.NUMPY_NAMES, (name, tag, described)
    assert builder.describe("v", np.sinc)[0] == "callable"
