"""Generated-source snapshots (reference: tests/golden), compared by `ast.dump` so formatting
drift does not matter but any change of the code does. `UPDATE_GOLDEN=1` rewrites them: review
the diff, never edit an expected file by hand."""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASES = sorted((HERE / "cases").glob("*.py"))


def vectorized_functions(path: Path):
    spec = importlib.util.spec_from_file_location(f"golden_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: obj for name, obj in vars(module).items() if hasattr(obj, "_vectorized_original")}


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_generated_source_matches_snapshot(case):
    functions = vectorized_functions(case)
    assert functions, f"{case.name} has no vectorized function"
    for name, vec in sorted(functions.items()):
        expected_path = HERE / "expected" / f"{case.stem}__{name}.py"
        if os.environ.get("UPDATE_GOLDEN"):
            expected_path.write_text(vec.source)
            continue
        assert expected_path.exists(), f"no snapshot {expected_path.name}; run with UPDATE_GOLDEN=1 and review"
        expected = expected_path.read_text()
        assert ast.dump(ast.parse(vec.source)) == ast.dump(ast.parse(expected)), (
            f"{case.name}:{name} generated source changed:\n{vec.source}"
        )
