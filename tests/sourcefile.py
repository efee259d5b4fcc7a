"""Functions defined from source text with a real file behind them (inspect.getsource needs one)."""

from __future__ import annotations

import hashlib
import linecache
import tempfile
from pathlib import Path
from typing import Any

_DIR = Path(tempfile.mkdtemp(prefix="array-vectorize-tests-"))


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
