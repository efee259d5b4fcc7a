"""Real frontends, offline, in fresh environments: the example project built by `pip wheel` and by
`python -m build` (sdist, then the wheel from the sdist), installed and run with compiling
forbidden; reproducibility; a read-only tree; an editable install; a project that cannot be
precompiled."""

from __future__ import annotations

import json
import math
import os
import stat
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from buildenv import (
    EXAMPLE_FUNCTIONS,
    check_record,
    clean_env,
    copy_example,
    new_venv,
    pip_into,
    pyproject,
    python_of,
    run,
    site_packages,
    tree_snapshot,
    write_project,
)

# Runs in the fresh environment: every marked function of the example, from the wheel, against
# its scalar original on realistic and edge inputs; prints what the test checks.
PROBE = r"""
import inspect, json, math, os
import numpy as np
import array_vectorize
from array_vectorize import api
from array_vectorize.docstring import vectorized_docstring
import finance_pkg
from finance_pkg import options, rates, risk

assert os.environ.get("ARRAY_VECTORIZE_NO_COMPILE") == "1"

def live_doc(original, compiled):
    # What the decorator gives a function it compiles itself.
    try:
        return vectorized_docstring(original, compiled.get("scalar_source"))
    except TypeError:
        return vectorized_docstring(original)

after_import = array_vectorize.stats()

rng = np.random.default_rng(7)
n = 64
spot = np.concatenate([rng.uniform(50.0, 150.0, n), [1e-300, 100.0, 130.0, 150.0, math.inf]])
m = spot.size
def arr(lo, hi):
    return rng.uniform(lo, hi, m)

calls = {
    "norm_cdf": (arr(-6.0, 6.0),),
    "black_scholes_call": (spot, 100.0, 0.03, arr(0.0, 0.6), arr(-0.5, 3.0)),
    "black_scholes_put": (spot, 100.0, 0.03, arr(0.05, 0.6), arr(0.1, 3.0)),
    "barrier_call": (np.where(spot > 149.0, 0.0, spot), 100.0, 130.0, 5.0),
    "digital_call": (spot, 100.0),
    "discount_factor": (arr(-0.02, 0.1), arr(0.0, 30.0)),
    "annuity_payment": (arr(1e4, 5e5), np.where(arr(0, 1) < 0.2, 0.0, arr(0.0, 0.1)), arr(1.0, 30.0)),
    "future_value": (arr(0.0, 500.0), arr(0.0, 0.08)),
    "compound_value": (arr(0.0, 1e5), np.concatenate([arr(-0.5, 0.5)[:-4], [0.0, -0.0, 1e-300, -11.99]]), arr(0.0, 30.0)),
    "income_tax": (np.concatenate([arr(0.0, 3e5)[:-4], [0.0, 12570.0, 50270.0, 125140.0]]),),
    "huber_loss": (arr(-5.0, 5.0), 1.5),
    "soft_threshold": (arr(-3.0, 3.0), 1.0),
    "value_at_risk": (arr(-0.01, 0.01), arr(0.0, 0.05), arr(1.0, 10.0)),
    "max_drawdown_step": (arr(50.0, 150.0), spot),
}
report = {"after_import": after_import, "functions": {}}
with np.errstate(all="ignore"):
    for mod in (options, rates, risk):
        for name, obj in vars(mod).items():
            original = getattr(obj, "_vectorized_original", None)
            if original is None or obj.__module__ != mod.__name__:
                continue
            args = calls[name]
            got = obj(*args)
            lanes = np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in args])
            expected = np.array([original(*[float(a[i]) for a in lanes]) for i in range(lanes[0].size)])
            close = np.allclose(got, expected, rtol=1e-12, atol=0.0, equal_nan=True)
            compiled, _ = api.compile_live(original, {"protect_domains": name.startswith("black_scholes"), "fallback": False})
            report["functions"][f"{mod.__name__}:{name}"] = {
                "matches_scalar": bool(close),
                "same_source_as_decorator": compiled["source"] == obj.source,
                "same_doc_as_decorator": obj.__doc__ == live_doc(original, compiled),
                "getsource_is_generated": inspect.getsource(obj) in obj.source,
                "code_file": obj.__code__.co_filename,
            }
report["after_calls"] = array_vectorize.stats()
print(json.dumps(report))
"""


def _run_probe(venv: Path, **env: str) -> dict:
    proc = run([python_of(venv), "-c", PROBE], env=clean_env(**env), cwd=venv)
    return json.loads(proc.stdout)


def _install_fresh(tmp_path: Path, base_env: Path, wheel: Path) -> Path:
    venv = new_venv(tmp_path / "venv", base=base_env)
    pip_into(venv, "install", "--no-deps", "--no-index", wheel)
    return venv


def test_pip_wheel_installs_and_runs_without_compiling(tmp_path, pip_wheel, base_env):
    venv = _install_fresh(tmp_path, base_env, pip_wheel)
    installed = site_packages(venv) / "finance_pkg"
    # The installer byte-compiled the generated code like any module.
    assert (installed / "__vectorized__" / "options" / "__pycache__").is_dir()
    report = _run_probe(venv, ARRAY_VECTORIZE_NO_COMPILE="1")
    n = len(EXAMPLE_FUNCTIONS)
    assert report["after_import"]["precompiled_hits"] == n
    assert report["after_import"]["compiled"] == 0
    assert sorted(report["functions"]) == sorted(EXAMPLE_FUNCTIONS)
    for name, checks in report["functions"].items():
        assert checks["matches_scalar"], name
        assert checks["same_source_as_decorator"], name
        assert checks["same_doc_as_decorator"], name
        assert checks["getsource_is_generated"], name
        assert checks["code_file"].startswith("<array-vectorize "), name


def test_record_lists_every_entry(pip_wheel):
    names = check_record(pip_wheel)
    assert "finance_pkg/__vectorized__/options.json" in names
    for target in EXAMPLE_FUNCTIONS:
        module, qualname = target.split(":")
        assert f"finance_pkg/__vectorized__/{module.split('.')[-1]}/{qualname}.py" in names


def test_python_m_build_via_sdist_gives_the_same_wheel(pip_wheel, build_dists):
    sdist, wheel = build_dists
    assert wheel.name == pip_wheel.name
    # Different frontend, different directory, built from the sdist: byte-identical.
    assert wheel.read_bytes() == pip_wheel.read_bytes()
    with tarfile.open(sdist) as tf:
        names = tf.getnames()
    root = sdist.name[: -len(".tar.gz")]
    assert f"{root}/pyproject.toml" in names
    assert f"{root}/src/finance_pkg/options.py" in names
    assert not any("__vectorized__" in n for n in names)  # the sdist ships sources only


def test_read_only_tree_builds_the_same_wheel_and_is_untouched(tmp_path, wheelhouse, pip_wheel):
    src = copy_example(tmp_path / "ro" / "finance_pkg")
    for path in [src, *src.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    before = tree_snapshot(src)
    try:
        out = tmp_path / "out"
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, src], env=wheelhouse.pip_env())
        assert tree_snapshot(src) == before
        (wheel,) = out.glob("*.whl")
        assert wheel.read_bytes() == pip_wheel.read_bytes()
    finally:
        for path in [src, *src.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _hook(base_env: Path, project: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    """Calls the backend's hooks in a fresh interpreter of the base environment, with the project
    as working directory, as a frontend's in-process script does."""
    return run([python_of(base_env), "-c", "import array_vectorize.build as b\n" + code], cwd=project, env=clean_env(**env), check=False)


def test_source_date_epoch_sets_every_timestamp(tmp_path, base_env, pip_wheel):
    src = copy_example(tmp_path / "finance_pkg")
    wheels = {}
    for epoch in ("0", "1700000000"):
        out = tmp_path / f"out-{epoch}"
        proc = _hook(base_env, src, f"print(b.build_wheel({str(out)!r}))", SOURCE_DATE_EPOCH=epoch)
        assert proc.returncode == 0, proc.stderr
        wheels[epoch] = out / proc.stdout.strip()
    with zipfile.ZipFile(wheels["0"]) as zf:
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    # SOURCE_DATE_EPOCH=0 is the default date: the same bytes as the frontends' wheels.
    assert wheels["0"].read_bytes() == pip_wheel.read_bytes()
    with zipfile.ZipFile(wheels["1700000000"]) as zf, zipfile.ZipFile(pip_wheel) as ref:
        assert {i.date_time for i in zf.infolist()} == {(2023, 11, 14, 22, 13, 20)}
        assert [(i.filename, zf.read(i)) for i in zf.infolist()] == [(i.filename, ref.read(i)) for i in ref.infolist()]


def test_wheel_file_has_the_wrapped_backends_mode(tmp_path, base_env):
    src = copy_example(tmp_path / "finance_pkg")
    modes = {}
    for backend in ("array_vectorize.build", "hatchling.build"):
        out = tmp_path / backend
        code = f"import os, {backend} as h\nos.umask(0o022)\nprint(h.build_wheel({str(out)!r}))"
        proc = run([python_of(base_env), "-c", code], cwd=src, env=clean_env())
        modes[backend] = stat.S_IMODE((out / proc.stdout.strip().splitlines()[-1]).stat().st_mode)
    assert modes["array_vectorize.build"] == modes["hatchling.build"] == 0o644


def test_prepare_metadata_matches_the_wheel(tmp_path, base_env, pip_wheel):
    src = copy_example(tmp_path / "finance_pkg")
    meta = tmp_path / "meta"
    meta.mkdir()
    proc = _hook(base_env, src, f"print(b.prepare_metadata_for_build_wheel({str(meta)!r}))")
    assert proc.returncode == 0, proc.stderr
    dist_info = proc.stdout.strip()
    with zipfile.ZipFile(pip_wheel) as zf:
        assert (meta / dist_info / "METADATA").read_bytes() == zf.read(f"{dist_info}/METADATA")


BAD_CORE = """\
    import math

    from array_vectorize import vectorize
    from .constants import *


    @vectorize
    def fine(x):
        return math.sqrt(x)


    @vectorize
    def scaled(x):
        return x * RATE


    @vectorize
    def pairs(x):
        return x @ x
"""


def _bad_project(root: Path, extra: str = "") -> Path:
    return write_project(
        root,
        {
            "pyproject.toml": pyproject("bad-pkg", extra),
            "src/bad_pkg/__init__.py": "",
            "src/bad_pkg/constants.py": "RATE = 0.25\n",
            "src/bad_pkg/core.py": BAD_CORE,
        },
    )


def test_uncompilable_project_fails_with_positioned_messages(tmp_path, wheelhouse):
    src = _bad_project(tmp_path / "bad")
    proc = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", tmp_path / "out", src], env=wheelhouse.pip_env(), check=False
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "error: array_vectorize.build: 2 marked functions cannot be precompiled:" in output
    # RATE comes from a star import: only the running module can tell what it is.
    assert "src/bad_pkg/core.py:12: bad_pkg.core:scaled can only be compiled once its module runs: `RATE`" in output
    assert "src/bad_pkg/core.py:19:12:" in output
    assert "^^^^" in output
    assert 'runtime = ["bad_pkg.core:scaled"]' in output
    assert "bad_pkg.core:pairs is rejected by the compiler" in output
    assert "Traceback" not in output
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.whl"))


def test_functions_left_to_run_time_compile_when_imported(tmp_path, wheelhouse, base_env):
    # `scaled` reads RATE through a star import the build cannot follow; at run time the
    # decorator sees the live module and compiles it. `pairs` is fixed by returning one value.
    src = _bad_project(tmp_path / "bad", '\n[tool.array-vectorize]\nruntime = ["bad_pkg.core:scaled"]\n')
    core = src / "src" / "bad_pkg" / "core.py"
    core.write_text(core.read_text().replace("return x @ x", "return x + x"))
    out = tmp_path / "out"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, src], env=wheelhouse.pip_env())
    (wheel,) = out.glob("bad_pkg-*.whl")
    venv = _install_fresh(tmp_path, base_env, wheel)
    probe = (
        "import json, array_vectorize, numpy as np\n"
        "from bad_pkg import core\n"
        "print(json.dumps([array_vectorize.stats(), core.scaled(np.array([4.0])).tolist(), core.pairs(np.array([4.0])).tolist()]))"
    )
    stats, scaled, pairs = json.loads(run([python_of(venv), "-c", probe], env=clean_env()).stdout)
    assert (stats["precompiled_hits"], stats["compiled"]) == (2, 1)
    assert scaled == [1.0] and pairs == [8.0]
    # Under ARRAY_VECTORIZE_NO_COMPILE=1 the function left to run time cannot be had: its module
    # imports and runs what was precompiled, and the listed function raises when called (issue 31).
    forbidden = (
        "import json, array_vectorize, numpy as np\n"
        "from bad_pkg import core\n"
        "pairs = core.pairs(np.array([4.0])).tolist()\n"
        "try:\n"
        "    core.scaled(np.array([4.0]))\n"
        "except array_vectorize.CompileDisabledError as exc:\n"
        "    print(json.dumps([array_vectorize.stats()['compiled'], pairs, str(exc)]))"
    )
    proc = run([python_of(venv), "-c", forbidden], env=clean_env(ARRAY_VECTORIZE_NO_COMPILE="1"))
    compiled, pairs, message = json.loads(proc.stdout)
    assert compiled == 0 and pairs == [8.0]
    assert message.startswith("bad_pkg.core.scaled is listed in [tool.array-vectorize] runtime"), message


def test_unknown_config_key_fails_the_build(tmp_path, base_env):
    src = _bad_project(tmp_path / "bad", '\n[tool.array-vectorize]\nbackedn = "flit_core.buildapi"\n')
    proc = _hook(base_env, src, f"b.build_wheel({str(tmp_path / 'out')!r})")
    assert proc.returncode == 1
    assert "unknown key 'backedn'; did you mean 'backend'?" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_editable_install_compiles_at_run_time_and_sees_edits(tmp_path, wheelhouse, base_env):
    src = copy_example(tmp_path / "finance_pkg")
    venv = new_venv(tmp_path / "venv", base=base_env)
    pip_into(venv, "install", "--no-deps", "-e", src, env=wheelhouse.pip_env())
    probe = (
        "import json, array_vectorize, numpy as np, finance_pkg\n"
        "print(json.dumps([array_vectorize.stats(), finance_pkg.soft_threshold(np.array([0.5, 3.0]), 1.0).tolist(),"
        " finance_pkg.soft_threshold.__code__.co_filename]))"
    )
    stats, values, _ = json.loads(run([python_of(venv), "-c", probe], env=clean_env(), cwd=tmp_path).stdout)
    assert stats["compiled"] == len(EXAMPLE_FUNCTIONS) and stats["precompiled_hits"] == 0
    assert values == [0.0, 2.0]
    risk = src / "src" / "finance_pkg" / "risk.py"
    risk.write_text(risk.read_text().replace("        return x - lam\n", "        return 2.0 * (x - lam)\n"))
    stats, values, _ = json.loads(run([python_of(venv), "-c", probe], env=clean_env(), cwd=tmp_path).stdout)
    assert values == [0.0, 4.0]


def test_another_wrapped_backend_and_flat_layout(tmp_path, wheelhouse, base_env):
    # flit_core instead of hatchling, a flat layout, a method in a class: still zero other config.
    src = write_project(
        tmp_path / "flat",
        {
            "pyproject.toml": pyproject("flat-pkg", '\n[tool.array-vectorize]\nbackend = "flit_core.buildapi"\n'),
            "flat_pkg/__init__.py": '"""A flat-layout package."""\nfrom .shapes import Circle, ramp\n',
            "flat_pkg/shapes.py": """\
                import math

                import array_vectorize

                TAU = 6.283185307179586


                @array_vectorize.vectorize
                def ramp(x, width=1.0):
                    if x <= 0.0:
                        return 0.0
                    return min(x / width, 1.0)


                class Circle:
                    @array_vectorize.vectorize
                    def area(r):
                        return TAU / 2.0 * r * r
            """,
        },
    )
    out = tmp_path / "out"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, src], env=wheelhouse.pip_env())
    (wheel,) = out.glob("flat_pkg-*.whl")
    names = check_record(wheel)
    assert "flat_pkg/__vectorized__/shapes/Circle.area.py" in names
    venv = _install_fresh(tmp_path, base_env, wheel)
    probe = (
        "import json, array_vectorize, numpy as np, flat_pkg\n"
        "print(json.dumps([array_vectorize.stats(), flat_pkg.ramp(np.array([-1.0, 0.5, 3.0])).tolist(),"
        " flat_pkg.Circle.area(np.array([2.0])).tolist()]))"
    )
    stats, ramp, area = json.loads(run([python_of(venv), "-c", probe], env=clean_env(ARRAY_VECTORIZE_NO_COMPILE="1")).stdout)
    assert (stats["precompiled_hits"], stats["compiled"]) == (2, 0)
    assert ramp == [0.0, 0.5, 1.0]
    assert area == [math.pi * 4.0]


IMP_UNITS = """\
    OFFSET = 273.15


    def clamp(k):
        return 0.0 if k < 0.0 else k


    def to_kelvin(c):
        if c < -OFFSET:
            return -1.0
        return clamp(c + OFFSET)
"""

IMP_CONV = """\
    from array_vectorize import vectorize
    from .units import to_kelvin
    import imp_pkg.units as u


    @vectorize
    def doubled(c):
        return to_kelvin(c) * 2.0


    @vectorize
    def aliased(c):
        return u.to_kelvin(c) - u.OFFSET
"""

IMP_PROBE = (
    "import json, array_vectorize, numpy as np\n"
    "from imp_pkg import conv\n"
    "cs = [-400.0, -273.15, -0.0, 25.5, float('nan'), float('inf')]\n"
    "got = [conv.doubled(np.array(cs)).tolist(), conv.aliased(np.array(cs)).tolist()]\n"
    "want = [[conv.doubled._vectorized_original(c) for c in cs], [conv.aliased._vectorized_original(c) for c in cs]]\n"
    "print(json.dumps([array_vectorize.stats(), repr(got), repr(want), conv.doubled.__code__.co_filename]))"
)


def test_helpers_imported_from_a_sibling_module_are_precompiled(tmp_path, wheelhouse, base_env):
    """Issue 12 (fails before it: the build reported both functions deferred, `imported from
    .units`): the wheel ships their code, used with compiling forbidden; an edit of the helper's
    module is in the next build's output, and an installed file edited after the build is caught
    by the check of its bytes."""
    src = write_project(
        tmp_path / "imp",
        {
            "pyproject.toml": pyproject("imp-pkg"),
            "src/imp_pkg/__init__.py": "",
            "src/imp_pkg/units.py": IMP_UNITS,
            "src/imp_pkg/conv.py": IMP_CONV,
        },
    )
    out = tmp_path / "out"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, src], env=wheelhouse.pip_env())
    (wheel,) = out.glob("imp_pkg-*.whl")
    assert "imp_pkg/__vectorized__/conv/doubled.py" in check_record(wheel)
    venv = _install_fresh(tmp_path, base_env, wheel)
    stats, got, want, code_file = json.loads(run([python_of(venv), "-c", IMP_PROBE], env=clean_env(ARRAY_VECTORIZE_NO_COMPILE="1")).stdout)
    assert (stats["precompiled_hits"], stats["compiled"]) == (2, 0)
    assert got == want and code_file.startswith("<array-vectorize ")
    before = got

    # The helper's module edited in the source tree: a new build, a new wheel, the new behaviour.
    units = src / "src" / "imp_pkg" / "units.py"
    units.write_text(units.read_text().replace("return -1.0", "return -9.0").replace("273.15", "200.0"))
    out2 = tmp_path / "out2"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out2, src], env=wheelhouse.pip_env())
    (wheel2,) = out2.glob("imp_pkg-*.whl")
    venv2 = new_venv(tmp_path / "venv2", base=base_env)
    pip_into(venv2, "install", "--no-deps", "--no-index", wheel2)
    stats, got, want, _ = json.loads(run([python_of(venv2), "-c", IMP_PROBE], env=clean_env(ARRAY_VECTORIZE_NO_COMPILE="1")).stdout)
    assert (stats["precompiled_hits"], stats["compiled"]) == (2, 0)
    assert got == want != before

    # The installed helper module edited after the build: the wheel's code is not used.
    installed = site_packages(venv) / "imp_pkg" / "units.py"
    installed.write_text(installed.read_text().replace("return -1.0", "return -3.25"))
    proc = run([python_of(venv), "-c", IMP_PROBE], env=clean_env(ARRAY_VECTORIZE_NO_COMPILE="1"), check=False)
    assert proc.returncode != 0 and "would be compiled" in proc.stderr, proc.stderr
    stats, got, want, _ = json.loads(run([python_of(venv), "-c", IMP_PROBE], env=clean_env()).stdout)
    assert (stats["precompiled_hits"], stats["compiled"]) == (0, 2)
    assert got == want and got.startswith("[[-6.5, ")
