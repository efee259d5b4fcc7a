"""Build backend: the wheel of a package with 200 marked functions, built by
``array_vectorize.build`` vs the plain backend it wraps (hatchling), and what that buys at import.

    python benchmarks/bench_build.py [--quick] [--functions N]

Each build runs the backend's ``build_wheel`` hook in a fresh interpreter with the project as
working directory, exactly as a frontend's hook subprocess does (the frontend's own work, creating
the isolated environment and installing into it, is the same for both and left out). Figures are
medians of wall-clock times over repeats, the two backends alternating. The bar (DESIGN.md
section 6): less than 2 s more than the plain backend.

Then both wheels are installed (unpacked and byte-compiled, as an installer does) and the package
is imported in a fresh interpreter: from the precompiled wheel (nothing compiled) and from the
plain one (the decorator compiles every function at import).

hatchling comes from ``target/test-wheelhouse`` when the build tests downloaded it there, else from
the package index, installed once into ``target/bench-build-tools`` (put on PYTHONPATH for the
builds only).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "target" / "bench-build-tools"
WHEELHOUSE = REPO / "target" / "test-wheelhouse"

MODULES = 10


def _function(i: int, m: int) -> str:
    # Realistic shapes: constants, math, a helper, early returns, a range loop.
    return textwrap.dedent(
        f'''\


        @vectorize
        def f_{i}(x, y):
            """Benchmark function {i}."""
            if x < LOWER:
                return _helper_{m}(y)
            acc = 0.0
            for k in range(3):
                acc = acc + math.sin(x * (k + 1.0) * {1.0 + i / 100.0!r}) / (k + 1.0)
            if acc > y:
                return acc - y
            return math.sqrt(abs(y)) * SCALE + {float(i)!r}
        '''
    )


def make_project(root: Path, functions: int = 200, backend: str = "array_vectorize.build") -> Path:
    """A src-layout project `benchpkg` with `functions` marked functions over MODULES modules."""
    pkg = root / "src" / "benchpkg"
    pkg.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [build-system]
            requires = ["array-vectorize"]
            build-backend = "{backend}"

            [project]
            name = "benchpkg"
            version = "1.0"
            description = "{functions} marked functions"
            dependencies = ["array-vectorize"]
            """
        )
    )
    (pkg / "__init__.py").write_text(
        "".join(f"from . import mod_{m}  # noqa: F401\n" for m in range(MODULES))
    )
    per_module = -(-functions // MODULES)
    for m in range(MODULES):
        body = [
            "import math\n\nfrom array_vectorize import vectorize\n\nLOWER = -1.0\nSCALE = 0.5\n\n\n"
            f"def _helper_{m}(v):\n    return v * {m + 1.0!r} - 1.0\n"
        ]
        for i in range(m * per_module, min((m + 1) * per_module, functions)):
            body.append(_function(i, m))
        (pkg / f"mod_{m}.py").write_text("".join(body))
    return root


def one_module(functions: int = 200) -> str:
    """One module holding `functions` marked functions (the shapes of `make_project`'s modules)."""
    body = [
        "import math\n\nfrom array_vectorize import vectorize\n\nLOWER = -1.0\nSCALE = 0.5\n\n\n"
        "def _helper_0(v):\n    return v * 1.0 - 1.0\n"
    ]
    body.extend(_function(i, 0) for i in range(functions))
    return "".join(body)


def static_compile_seconds(functions: int = 200, repeats: int = 7) -> float:
    """Median wall time of the static compile of `one_module(functions)` in this process
    (``_core.compile_module``, what the hook and the backend run per module)."""
    from array_vectorize import _core

    text = one_module(functions)
    times = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        entries = _core.compile_module(text, "benchmod.py")
        times.append(time.perf_counter() - start)
    if sum(e["status"] == "ok" for e in entries) != functions:
        raise RuntimeError("the benchmark module did not compile")
    return statistics.median(times[1:])


def _tools() -> Path:
    if not (TOOLS / "hatchling").is_dir():
        args = [sys.executable, "-m", "pip", "install", "-q", "--target", str(TOOLS), "hatchling", "editables"]
        if list(WHEELHOUSE.glob("hatchling-*.whl")):
            args += ["--no-index", "--find-links", str(WHEELHOUSE)]
        subprocess.run(args, check=True)
    return TOOLS


def _build_once(project: Path, backend: str, out: Path, env: dict) -> tuple[float, Path]:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    code = f"import {backend} as b\nprint(b.build_wheel({str(out)!r}))"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{backend} failed:\n{proc.stderr[-3000:]}")
    return elapsed, out / proc.stdout.strip().splitlines()[-1]


def _install(wheel: Path, target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(target)
    compileall.compile_dir(str(target), quiet=2)


def _import_time(site: Path, env: dict) -> tuple[float, dict]:
    code = (
        "import time, json, array_vectorize\n"
        "t = time.perf_counter()\n"
        "import benchpkg\n"
        "t = time.perf_counter() - t\n"
        "print(json.dumps([t, array_vectorize.stats()]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=dict(env, PYTHONPATH=str(site)), capture_output=True, text=True, check=True
    )
    t, stats = json.loads(proc.stdout)
    return t, stats


def run(quick: bool = False, functions: int = 200) -> dict:
    repeats = 3 if quick else 7
    tools = _tools()
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "ARRAY_VECTORIZE_NO_COMPILE")}
    env["PYTHONPATH"] = str(tools)
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        tmp = Path(tmp)
        project = make_project(tmp / "project", functions)
        times: dict[str, list[float]] = {"hatchling.build": [], "array_vectorize.build": []}
        wheels: dict[str, Path] = {}
        for i in range(repeats + 1):  # the first round warms the file cache
            for backend in times:
                elapsed, wheels[backend] = _build_once(project, backend, tmp / f"out-{backend}", env)
                if i:
                    times[backend].append(elapsed)
        plain = statistics.median(times["hatchling.build"])
        ours = statistics.median(times["array_vectorize.build"])
        with zipfile.ZipFile(wheels["array_vectorize.build"]) as zf:
            artifacts = sum("/__vectorized__/" in n for n in zf.namelist())
        sizes = {b: w.stat().st_size for b, w in wheels.items()}

        # Import of the installed package (array_vectorize already imported), per wheel.
        installs = {"precompiled wheel": "array_vectorize.build", "plain wheel (compiles at import)": "hatchling.build"}
        imports: dict[str, list[float]] = {label: [] for label in installs}
        stats = {}
        run_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
        for label, backend in installs.items():
            _install(wheels[backend], tmp / f"site-{backend}")
        for _ in range(repeats):
            for label, backend in installs.items():
                t, stats[label] = _import_time(tmp / f"site-{backend}", run_env)
                imports[label].append(t)

    static = static_compile_seconds(functions, repeats)
    rows = [
        {"what": f"static compile of one module of {functions} marked functions", "median s": round(static, 3), "detail": "_core.compile_module, in process"},
        {"what": f"wheel build, hatchling.build ({functions} marked functions)", "median s": round(plain, 3), "detail": f"{sizes['hatchling.build']} bytes"},
        {"what": "wheel build, array_vectorize.build", "median s": round(ours, 3), "detail": f"{sizes['array_vectorize.build']} bytes, {artifacts} artifacts"},
        {"what": "difference (bar: < 2 s)", "median s": round(ours - plain, 3), "detail": ""},
    ]
    for label, values in imports.items():
        s = stats[label]
        rows.append(
            {
                "what": f"import benchpkg, {label}",
                "median s": round(statistics.median(values), 4),
                "detail": f"compiled={s['compiled']} precompiled_hits={s['precompiled_hits']}",
            }
        )
    return {
        "rows": rows,
        "artifacts in wheel": artifacts,
        "repeats": repeats,
        "bars": [
            {
                "what": f"build backend: wheel of {functions} marked functions vs plain hatchling",
                "figure": f"+{ours - plain:.2f} s ({ours:.2f} s vs {plain:.2f} s)",
                "bar": "< 2 s more",
                "met": ours - plain < 2.0,
            }
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--functions", type=int, default=200)
    parser.add_argument("--static-only", action="store_true", help="only the static compile of one module")
    args = parser.parse_args()
    if args.static_only:
        seconds = static_compile_seconds(args.functions, 3 if args.quick else 7)
        print(f"static compile of one module of {args.functions} marked functions: {seconds:.3f} s")
        return
    result = run(quick=args.quick, functions=args.functions)
    for row in result["rows"]:
        print(f"{row['what']:<60} {row['median s']:>9}  {row['detail']}")
    print(f"artifacts in wheel: {result['artifacts in wheel']}, repeats: {result['repeats']}")
    for bar in result["bars"]:
        print(f"{bar['what']}: {bar['figure']} (bar {bar['bar']}: {'met' if bar['met'] else 'NOT met'})")


if __name__ == "__main__":
    main()
