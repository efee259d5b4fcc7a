"""The import hook as importers see it: the same functions as the plain decorator, untouched
modules without marks, packages, tracebacks, installation and logging. Each import runs in a fresh
interpreter (``hookproj.Project``)."""

from __future__ import annotations

import textwrap

from hookproj import CALLS, MARKED, Project, cache_name

DESCRIBE = (
    CALLS
    + """
import inspect
import mod
out = {
    name: {
        "source": fn.source,
        "getsource": inspect.getsource(fn),
        "doc": fn.__doc__,
        "signature": str(inspect.signature(fn)),
        "name": [fn.__name__, fn.__qualname__, fn.__module__],
        "canonical": getattr(fn._vectorized_original, "__array_vectorized__", None) is fn,
    }
    for name, fn in [("f", mod.f), ("g", mod.g)]
}
out["f(x, y)"] = mod.f(_x, _y).tolist()
out["g(x)"] = mod.g(_x - 1.0).tolist()
out["f(2.0, 1.0)"] = float(mod.f(2.0, 1.0))
"""
)


def test_same_functions_as_the_plain_decorator(project: Project):
    project.write("mod.py", MARKED)
    plain = project.run(DESCRIBE, hook=False)
    cold = project.run(DESCRIBE)
    warm = project.run(DESCRIBE)
    assert plain.stats["compiled"] == 2 and plain.stats["hook_hits"] == plain.stats["disk_cache_hits"] == 0
    assert cold.hook_stat("hook_modules_compiled") == 1 and warm.stats["compiled"] == 0
    assert cold.stats["hook_hits"] == warm.stats["hook_hits"] == 2
    # A disk hit is a cache file read: none on the cold import, which wrote it.
    assert (cold.stats["disk_cache_hits"], warm.stats["disk_cache_hits"]) == (0, 2)
    assert cold.out == plain.out
    assert warm.out == plain.out
    assert plain.out["f"]["doc"].startswith("(array-vectorized) Combine two values.")
    # Same under -OO, where docstrings are stripped from the scalar functions.
    oo_plain = project.run(DESCRIBE, hook=False, flags=("-OO",))
    project.run(DESCRIBE, flags=("-OO",))
    oo_warm = project.run(DESCRIBE, flags=("-OO",))
    assert oo_warm.stats["compiled"] == 0 and oo_warm.out == oo_plain.out


REBOUND = """
from array_vectorize import vectorize

K = 2.0
Z = 0.0
globals().update(K=3.0, Z=-0.0)  # invisible to the static compile, which assumes 2.0 and 0.0


@vectorize
def scale(x):
    return x * K


@vectorize
def signed_zero(x):
    return Z if x > 0.0 else 1.0


@vectorize
def unchanged(x):
    return x + 1.0
"""

REBOUND_CALLS = """
import math
import numpy as np
import mod
x = np.array([1.0, -2.0])
out = {
    "scale": mod.scale(x).tolist(),
    "zero_sign": math.copysign(1.0, float(mod.signed_zero(x)[0])),
    "unchanged": mod.unchanged(x).tolist(),
}
"""


def test_assumptions_are_checked_when_the_decorator_runs(project: Project):
    """The static compile freezes what the module's text says; a binding that differs when the
    decorator runs (here rebound through globals()) means compiling from the live function, never
    running the stale code (DESIGN.md section 4): on the cold import and on warm ones."""
    project.write("mod.py", REBOUND)
    cold = project.run(REBOUND_CALLS)
    warm = project.run(REBOUND_CALLS)
    assert cold.hook_stat("hook_modules_compiled") == 1 and warm.hook_stat("hook_cache_hits") == 1
    for res in (cold, warm):
        assert res.out == {"scale": [3.0, -6.0], "zero_sign": -1.0, "unchanged": [2.0, -1.0]}
        # Only `unchanged` runs the hook's code; the other two are compiled from the live function.
        assert res.stats["hook_hits"] == 1
    assert (cold.stats["disk_cache_hits"], warm.stats["disk_cache_hits"]) == (0, 1)
    assert warm.stats["compiled"] == 2


TRACEBACK = (
    CALLS
    + """
import traceback
import mod
mod.f(_x, _y)  # made final: a live first call's traceback also holds its stand-in's frame (issue 30)
try:
    mod.f(_x, _y[:3])
except ValueError:
    out = traceback.format_exc()
"""
)


def test_tracebacks_through_generated_code_show_the_generated_lines(project: Project):
    project.write("mod.py", MARKED)
    plain = project.run(TRACEBACK, hook=False)
    project.run(TRACEBACK)
    warm = project.run(TRACEBACK)  # cached bytecode, source registered by the decorator
    assert warm.stats["compiled"] == 0
    assert warm.out == plain.out
    lines = warm.out.splitlines()
    (i,) = [k for k, line in enumerate(lines) if line.strip().startswith('File "<array-vectorize f ')]
    assert lines[i].endswith(", in f")
    assert "xp.where(" in lines[i + 1]  # the generated line's text, from linecache
    number = int(lines[i].split(", line ")[1].split(",")[0])
    generated = project.run("import mod\nout = mod.f.source").out.splitlines()
    assert lines[i + 1].strip() == generated[number - 1].strip()


def test_errors_raised_while_a_marked_module_executes_have_plain_tracebacks(project: Project):
    project.write("mod.py", MARKED + "\nraise RuntimeError('boom')\n")
    plain = project.run("import mod", hook=False, ok=False)
    hooked = project.run("import mod", ok=False)
    assert "RuntimeError: boom" in plain.stderr
    assert hooked.stderr == plain.stderr  # no frame of the hook, no importlib frame


def test_a_module_without_marks_is_untouched(project: Project):
    project.write("plain.py", "import math\n\ndef f(x):\n    return math.sqrt(x)  # np.vectorize-able\n")
    project.write("mentions.py", "# uses array_vectorize elsewhere, marks nothing here\nX = 1\n")
    body = """
import importlib.machinery as m
import plain, mentions
out = {
    "plain": [type(plain.__loader__) is m.SourceFileLoader, plain.__spec__.loader is plain.__loader__],
    "mentions": isinstance(mentions.__loader__, m.SourceFileLoader),
}
"""
    res = project.run(body, env={"ARRAY_VECTORIZE_DEBUG": "hook-all"})
    assert res.out == {"plain": [True, True], "mentions": True}
    assert "plain: skipped (no marker)" in res.stderr
    # Only the module that names array_vectorize was looked at (and found to mark nothing).
    assert res.hook_stat("hook_modules_compiled") == 1 and res.stats["compiled"] == 0
    assert [p.name for p in project.cache_files()] == [cache_name("mentions")]
    assert not (project.root / "__pycache__" / cache_name("plain")).exists()


def test_unmarked_sources_are_recorded_and_not_read_again(project: Project):
    import array_vectorize

    plain = project.write("plain.py", "X = 1\n")
    debug = {"ARRAY_VECTORIZE_DEBUG": "hook-all"}
    first = project.run("import plain", env=debug)
    assert "plain: skipped (no marker)" in first.stderr
    record = project.root / "__pycache__" / f"array-vectorize-{array_vectorize.__version__}.unmarked"
    assert b"plain.py" in record.read_bytes()
    second = project.run("import plain", env=debug)
    assert "plain: skipped (no marker, known from its record)" in second.stderr
    # An edit changes size and mtime: the file is read again, and now it is hooked.
    plain.write_text(MARKED)
    third = project.run("import plain\nout = plain.f.source", env=debug)
    assert third.hook_stat("hook_modules_compiled") == 1 and third.stats["hook_hits"] == 2
    # No record is written under -B, none is read or written with the cache off.
    record.unlink()
    project.write("other.py", "Y = 2\n")
    project.run("import other", flags=("-B",))
    project.run("import other", env={"ARRAY_VECTORIZE_CACHE": "0"})
    assert not record.exists()
    project.run("import other")
    off = project.run("import other", env={"ARRAY_VECTORIZE_CACHE": "0", **debug})
    assert "other: skipped (no marker)" in off.stderr


def test_packages_relative_imports_init_and_namespace_packages(project: Project):
    project.write(
        "pkg/__init__.py",
        """
        from array_vectorize import vectorize
        from .consts import OFFSET
        from .sub import scaled, shifted

        @vectorize
        def top(x):
            return x * 0.5 if x > 1.0 else x
        """,
    )
    project.write("pkg/consts.py", "OFFSET = 10.0\n")
    project.write(
        "pkg/sub.py",
        """
        from array_vectorize import vectorize
        from .consts import OFFSET

        @vectorize
        def scaled(x):
            return x * 3.0

        @vectorize
        def shifted(x):
            return x + OFFSET   # a relative import: read from consts.py's text (issue 12)
        """,
    )
    project.write(
        "nspkg/inner/mod.py",
        """
        import array_vectorize as av
        from ..other import helper_value

        @av.vectorize
        def ns_fn(x):
            return -x if x < 0.0 else x
        """,
    )
    project.write("nspkg/other.py", "helper_value = 1\n")
    body = (
        CALLS
        + """
import pkg, nspkg, nspkg.inner.mod as nm
out = [pkg.top(_x).tolist(), pkg.scaled(_x).tolist(), pkg.shifted(_x).tolist(), nm.ns_fn(_x - 3.0).tolist(),
       pkg.__path__ is not None, nspkg.__file__ is None]
"""
    )
    plain = project.run(body, hook=False)
    cold = project.run(body)
    warm = project.run(body)
    assert cold.out == warm.out == plain.out
    assert cold.hook_stat("hook_modules_compiled") == 3  # pkg, pkg.sub, nspkg.inner.mod
    assert warm.hook_stat("hook_cache_hits") == 3
    assert warm.stats["disk_cache_hits"] == 4  # top, scaled, shifted, ns_fn
    assert warm.stats["compiled"] == 0
    names = {p.relative_to(project.root).as_posix() for p in project.cache_files()}
    assert names == {
        f"pkg/__pycache__/{cache_name('__init__')}",
        f"pkg/__pycache__/{cache_name('sub')}",
        f"nspkg/inner/__pycache__/{cache_name('mod')}",
    }


def test_rejected_functions_fail_the_same_way(project: Project):
    project.write(
        "mod.py",
        """
        from array_vectorize import vectorize

        @vectorize
        def bad(x):
            with open("rates.txt") as table:
                x = x - 1.0
            return x
        """,
    )
    body = "import mod"
    plain = project.run(body, hook=False, ok=False)
    cold = project.run(body, ok=False)
    warm = project.run(body, ok=False)
    assert "VectorizationError" in plain.stderr and "`with` is not supported" in plain.stderr
    assert cold.stderr == warm.stderr == plain.stderr
    assert len(project.cache_files()) == 1  # the module compiled; its verdicts are cached


def test_reload_sees_the_new_text(project: Project):
    project.write("mod.py", MARKED)
    body = (
        CALLS
        + """
import importlib, pathlib
import mod
before = mod.f(_x, _y).tolist()
p = pathlib.Path(mod.__file__)
p.write_text(p.read_text().replace("SCALE = 2.0", "SCALE = 7.125"))
importlib.reload(mod)
out = [before, mod.f(_x, _y).tolist(), [mod.f._vectorized_original(a, b) for a, b in zip(_x.tolist(), _y.tolist())]]
"""
    )
    res = project.run(body)
    before, after, scalar = res.out
    assert after == scalar and after != before
    assert res.hook_stat("hook_modules_compiled") == 2


def test_install_is_idempotent_uninstall_removes_and_late_install_warns(project: Project):
    project.write("early.py", MARKED)
    project.write("late.py", MARKED)
    project.write("later.py", MARKED)
    body = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import early
    import array_vectorize.auto as auto
    import array_vectorize.auto
    auto.install()
hooks = [f for f in sys.meta_path if getattr(f, "_array_vectorize_hook", False)]
first = sys.meta_path[0] is hooks[0]
import late
compiled_by_hook = _av.stats().get("hook_modules_compiled", 0)
auto.uninstall()
removed = not auto.is_installed()
import later
out = {
    "warnings": [(w.category.__name__, str(w.message), w.filename) for w in caught],
    "hooks": len(hooks), "first": first, "removed": removed,
    "hooked": [compiled_by_hook, _av.stats().get("hook_modules_compiled", 0)],
}
"""
    res = project.run(body, hook=False)
    (warning,) = res.out["warnings"]
    assert warning[0] == "UserWarning" and "early" in warning[1] and "Import array_vectorize.auto before" in warning[1]
    assert warning[2] == "<string>"  # attributed to the importing line
    assert res.out["hooks"] == 1 and res.out["first"] and res.out["removed"]
    assert res.out["hooked"] == [1, 1]  # late was hooked, later (after uninstall) was not


def test_debug_log_says_what_happened_to_each_module(project: Project):
    project.write("mod.py", MARKED)
    project.write("other.py", "X = 1\n")
    env = {"ARRAY_VECTORIZE_DEBUG": "ir,hook"}
    cold = project.run("import mod, other", env=env)
    warm = project.run("import mod, other", env=env)
    assert "array-vectorize hook: mod: compiled (2 compiled, 0 deferred to the decorator, 0 rejected)" in cold.stderr
    assert "cache written" in cold.stderr
    assert "array-vectorize hook: mod: cache hit (2 read from the cache, nothing compiled, 0 deferred to the decorator, 0 rejected)" in warm.stderr
    # `hook` logs the marked modules only; `hook-all` every module the hook sees, skipped or not.
    for res in (cold, warm):
        assert [line for line in res.stderr.splitlines() if line.startswith("array-vectorize hook:")] == [
            line for line in res.stderr.splitlines() if line.startswith("array-vectorize hook: mod: ")
        ]
    full = project.run("import mod, other, colorsys", env={"ARRAY_VECTORIZE_DEBUG": "hook-all"})
    assert "array-vectorize hook: other: skipped (no marker, known from its record)" in full.stderr
    assert "array-vectorize hook: colorsys: skipped (standard library)" in full.stderr
    assert "array-vectorize hook: mod: cache hit (2 read from the cache, nothing compiled, 0 deferred to the decorator, 0 rejected)" in full.stderr
    quiet = project.run("import mod, other")
    assert quiet.stderr == ""


def test_debug_log_names_each_function_left_to_the_decorator_and_why(project: Project):
    """Issue 31: the functions the static compile cannot vouch for are compiled by their
    decorators at every import (their code is not cached); the log says which and why."""
    project.write(
        "sensors.py",
        """\
import os

from array_vectorize import vectorize

GAIN = float(os.environ.get("SENSOR_GAIN", "2.0"))


@vectorize
def amplified(x):
    return x * GAIN


@vectorize
def offset(x):
    return x + 1.0
""",
    )
    env = {"ARRAY_VECTORIZE_DEBUG": "hook"}
    body = "import sensors\nout = sensors.amplified(3.0).item()"
    cold = project.run(body, env=env)
    warm = project.run(body, env=env)
    line = "array-vectorize hook: sensors: amplified (line 8) left to the decorator, which compiles it at each import: reads `GAIN`, which the module's text does not pin down"
    for res in (cold, warm):
        assert line in res.stderr, res.stderr
        assert "offset (line" not in res.stderr
        assert res.out == 6.0
    assert "cache hit (1 read from the cache, nothing compiled, 1 deferred to the decorator, 0 rejected)" in warm.stderr
    assert warm.stats["compiled"] == 1 and warm.stats["disk_cache_hits"] == 1  # amplified, offset


def test_loader_wrapping_keeps_other_finders_working(project: Project):
    """A meta-path finder of another tool, installed after the hook, still sees and loads its
    modules; the hook wraps that finder's loader for marked modules and delegates the rest."""
    project.write("mod.py", MARKED)
    body = textwrap.dedent(
        """
        import importlib.abc, importlib.machinery
        seen = []
        class Tool(importlib.abc.MetaPathFinder, importlib.abc.Loader):
            def find_spec(self, name, path, target=None):
                if name != "mod":
                    return None
                spec = importlib.machinery.PathFinder.find_spec(name, path)
                self.inner = spec.loader
                spec.loader = self
                return spec
            def create_module(self, spec):
                return None
            def exec_module(self, module):
                seen.append(module.__name__)
                self.inner.exec_module(module)
            def get_data(self, path):
                return self.inner.get_data(path)
        sys.meta_path.insert(1, Tool())
        import mod
        out = [seen, type(mod.__loader__).__name__, mod.f.source == mod.f.source]
        """
    )
    res = project.run(body)
    assert res.out == [["mod"], "HookLoader", True]
    assert res.stats["hook_hits"] == 2 and res.hook_stat("hook_modules_compiled") == 1


def test_modules_precompiled_into_their_wheel_are_left_to_it(project: Project, tmp_path):
    """A module installed from a wheel built by array_vectorize.build: the decorator takes the
    wheel's code (precompiled_hits); the hook neither compiles it nor writes a cache file."""
    import compileall

    from array_vectorize.build import config, precompile
    from array_vectorize.build.wheelfile import Entry

    entries = {"wheelpkg/__init__.py": Entry(b""), "wheelpkg/m.py": Entry(MARKED.encode())}
    artifacts, report = precompile.precompile(entries, "wheelpkg-0.1.0.dist-info", config.from_table({}), str(tmp_path))
    assert len(report.precompiled) == 2
    for arcname, entry in {**entries, **artifacts}.items():
        project.write(arcname, entry.data.decode())
    assert compileall.compile_dir(str(project.root / "wheelpkg" / "__vectorized__"), quiet=2)
    body = "import wheelpkg.m as m\nout = m.f.source"
    res = project.run(body, env={"ARRAY_VECTORIZE_NO_COMPILE": "1", "ARRAY_VECTORIZE_DEBUG": "hook"})
    assert "wheelpkg.m: skipped (precompiled in its wheel)" in res.stderr
    assert res.stats["precompiled_hits"] == 2 and res.stats["compiled"] == 0
    assert res.stats["hook_hits"] == res.stats["disk_cache_hits"] == 0 and project.cache_files() == []
    assert res.out == project.run(body, hook=False).out


LAZY = """
import sys
import mod
out = {
    "runtime": "array_vectorize.runtime" in sys.modules,
    "linecache": "linecache" in sys.modules,
}
import inspect
out["source"] = inspect.getsource(mod.f)
out["signature"] = str(inspect.signature(mod.f))
code = mod.f.__code__
""" + CALLS + """
out["value"] = mod.f(_x, _y).tolist()
out["g"] = mod.g(_x - 1.0).tolist()
out["same_code"] = mod.f.__code__ is code
"""


def test_warm_import_defers_the_runtime_to_the_first_call(project: Project):
    """A warm import makes each function from its cached code at once, but loads neither the
    runtime helpers nor linecache (emit.py, "Warm imports"): the generated source still reaches
    inspect (flushed into linecache as it loads), and the first call fills the globals without
    changing the function's code."""
    project.write("mod.py", MARKED)
    plain = project.run(LAZY, hook=False)
    project.run(LAZY)
    warm = project.run(LAZY)
    assert warm.stats["compiled"] == 0 and warm.stats["disk_cache_hits"] == 2
    assert warm.out["runtime"] is False and warm.out["linecache"] is False
    assert warm.out["source"].startswith("def f(x, y):") and warm.out["source"] == plain.out["source"]
    assert warm.out["signature"] == plain.out["signature"] == "(x, y)"
    assert warm.out["value"] == plain.out["value"] and warm.out["g"] == plain.out["g"]
    assert warm.out["same_code"] is True


THREADS = CALLS + """
import sys, threading
sys.setswitchinterval(1e-6)  # switch threads as often as possible
import mod
barrier = threading.Barrier(8)
results = [None] * 8
def work(i):
    barrier.wait()
    # Half the threads take the float path, half the exact one (int arrays), all at the first call.
    args = (_x, _y) if i % 2 else (_x.astype("int64"), _y.astype("int64"))
    results[i] = mod.f(*args).tolist()
threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
out = {"float": results[1::2], "int": results[0::2]}
"""


def test_first_calls_from_many_threads_at_once(project: Project):
    """The first call fills a lazy function's globals; threads racing into it all get results."""
    project.write("mod.py", MARKED)
    plain = project.run(THREADS, hook=False)
    project.run(THREADS)
    warm = project.run(THREADS)
    assert warm.stats["compiled"] == 0 and warm.stats["disk_cache_hits"] == 2
    assert warm.out == plain.out
    assert all(r == plain.out["float"][0] for r in warm.out["float"])
    assert all(r == plain.out["int"][0] for r in warm.out["int"])
