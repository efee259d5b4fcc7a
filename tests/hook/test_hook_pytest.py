"""pytest's assertion rewriting keeps working on test modules that contain marked functions when
the hook is installed from a conftest (the hook wraps the rewriter's loader and delegates)."""

from __future__ import annotations

import subprocess
import sys

from hookproj import Project

CONFTEST = "import array_vectorize.auto  # noqa: F401\n"

TEST_MODULE = '''\
import numpy as np
import array_vectorize
from array_vectorize import vectorize


@vectorize
def double(x):
    return x * 2.0 if x > 0.0 else 0.0


def test_rewritten_failure():
    y = double(np.array([1.0, 2.0]))
    assert float(y[1]) == 5.0


def test_served_by_the_hook():
    s = array_vectorize.stats()
    assert s["hook_hits"] == 1 and s.get("hook_modules_compiled", 0) + s.get("hook_cache_hits", 0) == 1
    assert double.source.startswith("def double(x):")
'''


def run_pytest(project: Project) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q", "test_it.py"],
        cwd=project.root,
        env=project.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pytest_still_rewrites_asserts_in_hooked_test_modules(project: Project):
    project.write("conftest.py", CONFTEST)
    project.write("test_it.py", TEST_MODULE)
    project.write("pytest.ini", "[pytest]\n")
    for _ in range(2):  # cold, then warm
        proc = run_pytest(project)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "1 failed, 1 passed" in proc.stdout, proc.stdout
        # pytest's introspection of the failing comparison: only a rewritten assert shows it.
        assert "assert 4.0 == 5.0" in proc.stdout, proc.stdout
        assert "where 4.0 = float(" in proc.stdout, proc.stdout
    assert len(project.cache_files()) == 1
    # pytest's own cache of the rewritten module is there too.
    assert list((project.root / "__pycache__").glob("test_it.*-pytest-*.pyc"))
