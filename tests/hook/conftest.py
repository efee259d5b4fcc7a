"""Fixtures of the import hook's tests (helpers in ``hookproj.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookproj import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project directory; its modules are imported in fresh interpreters."""
    return Project(tmp_path / "proj")
