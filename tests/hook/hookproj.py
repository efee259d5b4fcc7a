"""Helpers for the import hook's tests: every test writes real files under ``tmp_path`` and imports
them in a fresh interpreter (``sys.executable``) with a controlled environment, so that the hook,
``sys.meta_path`` and the cache are never shared with the test process or with other tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path


# Variables of the outer environment that change what the hook does: never inherited.
_CONTROLLED = (
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONPYCACHEPREFIX",
    "PYTHONOPTIMIZE",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONWARNINGS",
    "PYTHONSAFEPATH",
    "ARRAY_VECTORIZE_CACHE",
    "ARRAY_VECTORIZE_NO_COMPILE",
    "ARRAY_VECTORIZE_DEBUG",
)

#: A module with two marked functions: one reads a frozen constant, a helper and math; one has options.
MARKED = '''\
import math
from array_vectorize import vectorize

SCALE = 2.0


def helper(v):
    return v * SCALE


@vectorize
def f(x, y):
    """Combine two values."""
    if x > y:
        return helper(x) - y
    return math.sqrt(y) + x


@vectorize(protect_domains=True)
def g(x):
    return math.log(x) if x > 0.0 else -1.0
'''

#: Arguments the probes call `f` and `g` with (NumPy float64 arrays).
CALLS = """
import numpy as np
_x = np.array([0.5, 1.0, 2.0, 4.0, 9.0])
_y = np.array([1.0, 0.25, 3.0, 4.0, 2.0])
"""


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    stats: dict = field(default_factory=dict)
    out: object = None

    def hook_stat(self, name: str) -> int:
        return self.stats.get(name, 0)


class Project:
    """A directory of modules and the interpreters that import them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")
        return path

    def env(self, extra: dict | None = None) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in _CONTROLLED}
        env["PYTHONPATH"] = str(self.root)
        env.update(extra or {})
        return env

    def command(self, body: str, hook: bool = True, flags: tuple = ()) -> list[str]:
        code = "\n".join(
            [
                "import json, sys",
                "import array_vectorize.auto" if hook else "",
                "import array_vectorize as _av",
                "out = None",
                textwrap.dedent(body),
                'print("RESULT:" + json.dumps({"stats": _av.stats(), "out": out}, default=repr))',
            ]
        )
        return [sys.executable, *flags, "-c", code]

    def run(
        self,
        body: str,
        *,
        hook: bool = True,
        env: dict | None = None,
        flags: tuple = (),
        ok: bool = True,
        timeout: float = 120,
    ) -> Result:
        proc = subprocess.run(
            self.command(body, hook, flags),
            cwd=self.root,
            env=self.env(env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return self.result(proc.returncode, proc.stdout, proc.stderr, ok)

    @staticmethod
    def result(returncode: int, stdout: str, stderr: str, ok: bool = True) -> Result:
        res = Result(returncode, stdout, stderr)
        for line in stdout.splitlines():
            if line.startswith("RESULT:"):
                data = json.loads(line[len("RESULT:") :])
                res.stats, res.out = data["stats"], data["out"]
        if ok:
            assert returncode == 0 and res.stats, f"exit {returncode}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
        return res

    def cache_files(self, under: Path | None = None) -> list[Path]:
        return sorted((under or self.root).rglob("*.array-vectorize-*.avc"))

    def temp_files(self, under: Path | None = None) -> list[Path]:
        return sorted((under or self.root).rglob(".tmp-array-vectorize-*"))


def cache_name(module: str, optimize: int = 0) -> str:
    """The cache file name of `module` for this interpreter (what the hook must produce)."""
    import array_vectorize

    opt = f".opt-{optimize}" if optimize else ""
    return f"{module}.{sys.implementation.cache_tag}{opt}.array-vectorize-{array_vectorize.__version__}.avc"
