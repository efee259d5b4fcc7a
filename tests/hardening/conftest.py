"""Fixtures of the hardening tests: the hook's project helper (``tests/hook/hookproj.py``) and
the build tests' wheelhouse (``tests/build/buildenv.py``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "hook"))
sys.path.insert(0, str(Path(__file__).parent.parent / "build"))

from buildenv import Wheelhouse, array_vectorize_wheel, third_party_wheels  # noqa: E402
from hookproj import Project  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project directory; its modules are imported in fresh interpreters."""
    return Project(tmp_path / "proj")


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> Wheelhouse:
    """array-vectorize's wheel (from dist/) and the third-party wheels, for --find-links."""
    scratch = tmp_path_factory.mktemp("wheelhouse")
    wheel = array_vectorize_wheel(scratch)
    own = scratch / "own"
    own.mkdir()
    shutil.copy(wheel, own)
    return Wheelhouse(own / wheel.name, (own, third_party_wheels()))
