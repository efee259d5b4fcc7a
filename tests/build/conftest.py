"""Session fixtures of the build backend's tests (the machinery is in ``buildenv.py``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from buildenv import (
    Wheelhouse,
    array_vectorize_wheel,
    copy_example,
    new_venv,
    pip_into,
    run,
    third_party_wheels,
)


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> Wheelhouse:
    """array-vectorize's wheel (from dist/) and the third-party wheels, for --find-links."""
    scratch = tmp_path_factory.mktemp("wheelhouse")
    wheel = array_vectorize_wheel(scratch)
    own = scratch / "own"
    own.mkdir()
    shutil.copy(wheel, own)
    return Wheelhouse(own / wheel.name, (own, third_party_wheels()))


@pytest.fixture(scope="session")
def base_env(tmp_path_factory, wheelhouse) -> Path:
    """A venv with the runtime dependencies and hatchling (array-vectorize from the wheelhouse);
    fresh venvs see it through a .pth line, and direct hook calls run in it."""
    venv = new_venv(tmp_path_factory.mktemp("base") / "venv")
    pip_into(venv, "install", "-q", "--no-compile", "array-vectorize", "numpy", "hatchling", env=wheelhouse.pip_env())
    return venv


@pytest.fixture(scope="session")
def pip_wheel(tmp_path_factory, wheelhouse) -> Path:
    """The example project built by `pip wheel` (isolated build, offline)."""
    root = tmp_path_factory.mktemp("pip-wheel")
    src = copy_example(root / "finance_pkg")
    out = root / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, src], env=wheelhouse.pip_env())
    (wheel,) = out.glob("finance_pkg-*.whl")
    return wheel


@pytest.fixture(scope="session")
def build_dists(tmp_path_factory, wheelhouse) -> tuple[Path, Path]:
    """The example built by `python -m build` from another directory: an sdist, then a wheel
    built from that sdist (build's default), both in isolated environments."""
    root = tmp_path_factory.mktemp("python-m-build")
    src = copy_example(root / "elsewhere" / "checkout-of-finance")
    out = root / "dist"
    run([sys.executable, "-m", "build", "--outdir", out, src], env=wheelhouse.pip_env())
    (sdist,) = out.glob("finance_pkg-*.tar.gz")
    (wheel,) = out.glob("finance_pkg-*.whl")
    return sdist, wheel
