"""Hostile inputs end cleanly on every way in: deep chains of every kind, long `elif` chains,
fan-out helpers, huge literals, deep brackets. Each runs in a child interpreter under a 2 GiB
address-space limit and a time limit, through the decorator, the import hook and the build
backend's precompile step (`_core.compile_module`, as the backend calls it; one real `pip
wheel` too). A clean end is an exit, never a signal or an abort: a `VectorizationError` that
says what is too large, a compiled function that gives CPython's results, or, where CPython
itself cannot compile the module, CPython's own error after the hook has looked at it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

#: Address space of every child: far below what the runaway cases took (917 MiB at depth 20,
#: an out-of-memory abort at 23), far above what compiling needs (the compile thread reserves a
#: 256 MiB stack).
MEMORY_LIMIT = 2 << 30
#: Seconds a child may take; the slowest case takes a few seconds on a loaded machine.
TIME_LIMIT = 60

HEADER = "from array_vectorize import vectorize\n\n\n"


def _marked(body: str, params: str = "x") -> str:
    return f"{HEADER}@vectorize\ndef premium({params}):\n{body}"


def _chain(unit: str, n: int) -> str:
    return _marked(f"    return x{unit * n}\n")


def _elif(n: int) -> str:
    branches = "".join(f"    elif x == {i}.0:\n        return {i * 0.5}\n" for i in range(1, n))
    return _marked(f"    if x == 0.0:\n        return 0.0\n{branches}    return -1.0\n")


def _fan_out(depth: int) -> str:
    # h_i calls h_{i+1} twice: inlined naively, 2**depth copies of the innermost body.
    helpers = "".join(f"def h{i}(x):\n    return h{i + 1}(x) + h{i + 1}(x)\n\n\n" for i in range(depth))
    helpers += f"def h{depth}(x):\n    return x * 0.5 if x > 1.0 else x\n\n\n"
    return HEADER + helpers + "@vectorize\ndef premium(x):\n    return h0(x)\n"


def _too_big(depth: int) -> str:
    # Each level calls the next with twice as many different constants: compiled out of line
    # (D7), still 2**depth functions.
    helpers = "".join(
        f"def s{i}(x, c):\n    return s{i + 1}(x, 2 * c) + s{i + 1}(x, 2 * c + 1)\n\n\n" for i in range(depth)
    )
    helpers += f"def s{depth}(x, c):\n    return x * c if x > c else x - c\n\n\n"
    return HEADER + helpers + "@vectorize\ndef premium(x):\n    return s0(x, 1)\n"


def _literals() -> str:
    rates = ", ".join(f"{i * 0.001}" for i in range(5000))
    table = ",\n    ".join(str(i) for i in range(200_000))
    return (
        f"{HEADER}RATES = ({rates})\nTABLE = [\n    {table},\n]\n\n\n"
        "@vectorize\ndef premium(x):\n    return x * RATES[3] + RATES[4999]\n"
    )


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    #: What a clean end says: a fragment of the VectorizationError, or None for a function that
    #: compiles (its results are compared with CPython's).
    error: str | None
    #: CPython 3.11 itself refuses to compile the module (RecursionError, MemoryError): the
    #: decorator never runs; the hook and the backend must still end cleanly.
    cpython_refuses: bool = False


DEEP = "expression chain more than 1000 operations deep"
TOO_BIG = "too big to vectorize"
CASES = [
    Case("attribute-chain", _chain(".real", 1500), DEEP),
    Case("call-chain", _chain("()", 1500), DEEP),
    Case("subscript-chain", _chain("[0]", 1500), DEEP),
    Case("not-chain", _marked("    return " + "not " * 1500 + "x\n"), DEEP),
    Case("sum-chain", _chain(" + 1.0", 1500), DEEP),
    Case("elif-chain", _elif(1500), "more than 1000 `elif` branches"),
    # At the limit: compiles (in linear time) and gives CPython's results.
    Case("elif-chain-999", _elif(999), None),
    Case("brackets", _marked("    return " + "(" * 150 + "x" + ")" * 150 + "\n"), "brackets are nested more than 100"),
    # Past the inlining budget helpers become functions of their own (D7): the fan-out compiles
    # (tests/hardening/test_out_of_line_helpers.py compares it with CPython); 2**20 different
    # signatures are still too many.
    Case("fan-out-signatures", _too_big(20), TOO_BIG),
    # Within the budget, the same shape compiles and gives CPython's results.
    Case("fan-out-helpers-8", _fan_out(8), None),
    Case("huge-int", _marked("    return x + " + "9" * 4000 + "\n"), "outside the 64-bit range"),
    Case("huge-literals", _literals(), None),
    # Beyond what CPython compiles: these crashed the importing process before.
    Case("attribute-chain-30000", _chain(".real", 30_000), DEEP, cpython_refuses=True),
    Case("call-chain-30000", _chain("()", 30_000), DEEP, cpython_refuses=True),
    Case("not-chain-30000", _marked("    return " + "not " * 30_000 + "x\n"), DEEP, cpython_refuses=True),
    Case("elif-chain-9000", _elif(9000), "more than 1000 `elif` branches", cpython_refuses=True),
]

#: The child's prologue: the limits, then a report of how it ended on its last line.
PROLOGUE = f"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))
def report(**what):
    print("REPORT:" + json.dumps(what))
"""

#: Import `hostile` (the decorator compiles at import; with the hook, the hook first).
IMPORT = """
import numpy as np
try:
    import hostile
except Exception as exc:
    report(kind=type(exc).__name__, message=str(exc))
else:
    x = np.array([0.0, 1.0, 2.0, 3.5, -4.0])
    report(kind="ok", got=hostile.premium(x).tolist(), expected=[hostile.premium._vectorized_original(v) for v in x.tolist()])
"""

#: What the build backend does per module (array_vectorize/build/precompile.py).
BACKEND = """
from array_vectorize import _core
text = open("hostile.py", encoding="utf-8").read()
try:
    (entry,) = _core.compile_module(text, "hostile.py")
except _core.VectorizationError as exc:
    report(kind="VectorizationError", message=str(exc))
else:
    report(kind=entry["status"], message=entry.get("error") or "")
"""

WAYS = {
    "decorator": IMPORT,
    "hook": "import array_vectorize.auto\n" + IMPORT,
    "backend": BACKEND,
}


def _child_env(root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ARRAY_VECTORIZE_"))}
    env["PYTHONPATH"] = str(root)
    return env


def _run(tmp_path: Path, source: str, script: str) -> dict:
    (tmp_path / "hostile.py").write_text(source, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", PROLOGUE + script],
        cwd=tmp_path,
        env=_child_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
    )
    ended = f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, ended
    reports = [line for line in proc.stdout.splitlines() if line.startswith("REPORT:")]
    assert reports, ended
    return json.loads(reports[-1][len("REPORT:") :])


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_ends_cleanly(tmp_path, case: Case, way: str):
    if case.cpython_refuses and way == "decorator":
        pytest.skip("CPython cannot compile the module, so no decorator runs")
    outcome = _run(tmp_path, case.source, WAYS[way])
    if case.cpython_refuses and way == "hook":
        # The hook compiled (or refused) the module without dying; CPython then refuses it.
        assert outcome["kind"] in ("RecursionError", "MemoryError", "SyntaxError", "VectorizationError"), outcome
        return
    if case.error is None:
        if way == "backend":
            assert outcome["kind"] == "ok", outcome
        else:
            assert outcome["kind"] == "ok", outcome
            assert outcome["got"] == outcome["expected"]
        return
    assert outcome["kind"] in ("VectorizationError", "error"), outcome
    assert case.error in outcome["message"], outcome["message"][:2000]
    # A clear error: positioned in the file, and short even when the line is huge.
    assert "hostile.py:" in outcome["message"]
    assert len(outcome["message"]) < 5000


def test_a_compile_on_a_small_thread_stack_ends_cleanly(tmp_path):
    """Threads started after `threading.stack_size(256 KiB)` call the core too: the compile runs
    on its own large stack, so limit-sized and hostile functions end the same way there."""
    script = """
import threading
from array_vectorize import _core
cases = {
    "near-limit": "from array_vectorize import vectorize\\n\\n@vectorize\\ndef f(x):\\n    return " + "not " * 999 + "x\\n",
    "sum-near-limit": "from array_vectorize import vectorize\\n\\n@vectorize\\ndef f(x):\\n    return x" + " + 1.0" * 999 + "\\n",
    "hostile": "from array_vectorize import vectorize\\n\\n@vectorize\\ndef f(x):\\n    return x" + ".real" * 30000 + "\\n",
}
out = {}
def work():
    for name, text in cases.items():
        out[name] = _core.compile_module(text, "t.py")[0]["status"]
threading.stack_size(256 * 1024)
t = threading.Thread(target=work)
t.start()
t.join()
report(kind="ok", statuses=out)
"""
    outcome = _run(tmp_path, "", script)
    assert outcome["statuses"] == {"near-limit": "ok", "sum-near-limit": "ok", "hostile": "error"}, outcome


def test_pip_wheel_of_a_hostile_project_fails_cleanly(tmp_path, wheelhouse):
    """The real backend: `pip wheel` of a project whose module holds helpers with 2**20 signatures
    and a 1,500-deep chain fails with positioned messages, no traceback, within the limits."""
    from buildenv import pyproject, run, write_project

    source = _too_big(20).replace("def premium", "def fan_out") + "\n\n" + _chain(".real", 1500).replace(HEADER, "")
    src = write_project(
        tmp_path / "hostile",
        {
            "pyproject.toml": pyproject("hostile-pkg"),
            "src/hostile_pkg/__init__.py": "",
            "src/hostile_pkg/core.py": source,
        },
    )
    limited = textwrap.dedent(f"""
        import resource, runpy, sys
        resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))
        sys.argv = ["pip", "wheel", "--no-deps", "-w", {str(tmp_path / "out")!r}, {str(src)!r}]
        runpy.run_module("pip", run_name="__main__")
    """)
    proc = run([sys.executable, "-c", limited], env=wheelhouse.pip_env(), check=False, timeout=240)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output[-4000:]
    assert "2 marked functions cannot be precompiled" in output, output[-4000:]
    assert TOO_BIG in output and DEEP in output, output[-4000:]
    assert "Traceback" not in output and "panicked" not in output
