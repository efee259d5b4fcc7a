"""Shared test machinery: the CPython oracle and the backends every behaviour test runs on."""

from __future__ import annotations

import inspect
import math
import signal
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from oracle import BACKENDS  # noqa: E402


TESTS = Path(__file__).parent


def _interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config):
    # pytest-xdist registers the mark too; this keeps a run without it free of unknown-mark errors.
    config.addinivalue_line("markers", "xdist_group(name): run on the same pytest-xdist worker as the group's other tests")
    # A run stopped by SIGTERM (a CI timeout, `kill`) ends as Ctrl-C ends it: pytest finishes the
    # session and the process exits normally, so the temporary directories it made are removed
    # (`sourcefile.scratch_directory`, pytest's own under tmp_path_retention_policy).
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupted)


def _group(item) -> str:
    """The pytest-xdist group of a test that uses a session- or module-scoped fixture of this
    suite ("" for none): one group for every user of a session fixture (the build tests'
    wheelhouse, venvs and wheels), one per module for a module fixture's users. Under xdist
    (`make test-python` runs `-n auto --dist loadgroup`) a group runs on one worker, so each such
    fixture is made once per run, as without xdist."""
    group = ""
    info = getattr(item, "_fixtureinfo", None)  # pytest's record of a test function's fixtures
    for defs in info.name2fixturedefs.values() if info is not None else ():
        for fixturedef in defs:
            if fixturedef.scope not in ("session", "module"):
                continue
            if not Path(inspect.getfile(fixturedef.func)).resolve().is_relative_to(TESTS.resolve()):
                continue  # pytest's own (tmp_path_factory, ...) and plugins'
            if fixturedef.scope == "session":
                return "session-fixtures"
            group = item.nodeid.split("::")[0]
    return group


def pytest_collection_modifyitems(config, items):
    for item in items:
        group = _group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(params=sorted(BACKENDS), ids=sorted(BACKENDS))
def backend(request):
    """Name of an Array API backend ("numpy", "strict"); see oracle.BACKENDS."""
    return request.param


@pytest.fixture(autouse=True)
def _ieee_quiet():
    # D3: numeric exceptions become IEEE values; NumPy's warnings about them are expected.
    with np.errstate(all="ignore"):
        yield


__all__ = ["math"]
