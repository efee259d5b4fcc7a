"""``examples/hook_app``, run as a user runs it (``python main.py``, twice, in a fresh copy): the
first run compiles the marked functions of the module it imports and writes the cache, the second
compiles nothing; both check every result against the scalar originals."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from hookproj import Project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hook_app"


def test_the_hook_example_compiles_once_then_reads_its_cache(tmp_path: Path):
    app = tmp_path / "hook_app"
    shutil.copytree(EXAMPLE, app, ignore=shutil.ignore_patterns("__pycache__"))
    env = Project(app).env({"ARRAY_VECTORIZE_DEBUG": "hook"})
    env.pop("PYTHONPATH")  # the script's own directory is on sys.path, as for any script

    def run() -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "main.py"], cwd=app, env=env, capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        assert "every result matches the scalar original element by element" in proc.stdout
        assert "Warning" not in proc.stderr, proc.stderr
        return proc

    first, second = run(), run()
    assert "compiled: 3, read from the hook's cache: 0" in first.stdout
    assert "kernels: compiled (3 compiled, 0 deferred to the decorator, 0 rejected)" in first.stderr
    assert "compiled: 0, read from the hook's cache: 3" in second.stdout
    assert "kernels: cache hit" in second.stderr
    assert len(list((app / "__pycache__").glob("kernels.*.array-vectorize-*.avc"))) == 1
