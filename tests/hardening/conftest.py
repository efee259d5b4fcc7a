"""Fixtures of the hardening tests: real files in ``tmp_path``, imported in fresh interpreters
(``tests/hook/hookproj.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "hook"))

from hookproj import Project  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project directory; its modules are imported in fresh interpreters."""
    return Project(tmp_path / "proj")
