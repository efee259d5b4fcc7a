"""Functions defined from source text with a real file behind them (inspect.getsource needs one)."""

from __future__ import annotations

import atexit
import hashlib
import linecache
import shutil
import tempfile
from pathlib import Path
from typing import Any


def scratch_directory(prefix: str) -> Path:
    """A temporary directory of this process, removed when it exits: normally, by an exception,
    by Ctrl-C, or by SIGTERM (which tests/conftest.py turns into Ctrl-C's KeyboardInterrupt). A
    SIGKILL leaves it: whoever kills so gives the process a TMPDIR of its own to remove
    (tests/mutation/run.py does)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    return path


_DIR = scratch_directory("array-vectorize-tests-")


def from_source(source: str, glob: dict[str, Any] | None = None, name: str | None = None):
    """Writes `source` to a file, executes it, and returns its function `name` (default: the
    first `def`)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = _DIR / f"case_{digest}.py"
    path.write_text(source)
    linecache.checkcache(str(path))
    namespace: dict[str, Any] = dict(glob or {})
    namespace.setdefault("__name__", f"case_{digest}")
    exec(compile(source, str(path), "exec"), namespace)
    if name is None:
        name = source.split("def ", 1)[1].split("(", 1)[0]
    return namespace[name]
