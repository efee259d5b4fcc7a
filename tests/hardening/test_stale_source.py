"""After an in-process edit, the code that runs is compiled from the new text.

Each test runs in a fresh interpreter: a module with a marked function is imported (under the
import hook, which registers its statically compiled entries, or without it), the file is edited
in place (same function name and line, another formula), and the new text is executed again by
``importlib.reload``, ``runpy.run_path``, ``spec_from_file_location`` + ``exec_module`` or
``exec(compile(text, path, "exec"))``. The function that results must compute the new formula:
neither the decorator's source lookup (linecache) nor precompiled entries registered for the old
text may be reused.
"""

from __future__ import annotations

import pytest

OLD = '''\
from array_vectorize import vectorize


@vectorize
def fee(amount):
    return amount * 2.0
'''
NEW = OLD.replace("amount * 2.0", "amount * 3.0 + 1.0")

EDIT = f"""
import importlib, importlib.util, os, runpy, sys
import numpy as np
sys.path.insert(0, os.getcwd())
import tariff
x = np.array([1.0, 2.0])
before = tariff.fee(x).tolist()
with open(tariff.__file__, "w") as f:
    f.write({NEW!r})
"""

AGAIN = {
    "reload": "fn = importlib.reload(tariff).fee",
    "run_path": "fn = runpy.run_path(tariff.__file__)['fee']",
    "exec_module": (
        "spec = importlib.util.spec_from_file_location('tariff_copy', tariff.__file__)\n"
        "mod = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(mod)\n"
        "fn = mod.fee"
    ),
    "exec_compile": (
        "ns = {'__name__': 'tariff_exec'}\n"
        "exec(compile(open(tariff.__file__).read(), tariff.__file__, 'exec'), ns)\n"
        "fn = ns['fee']"
    ),
    "exec_into_module": (
        "exec(compile(open(tariff.__file__).read(), tariff.__file__, 'exec'), tariff.__dict__)\n"
        "fn = tariff.fee"
    ),
}


@pytest.mark.parametrize("hook", [True, False], ids=["hook", "decorator"])
@pytest.mark.parametrize("how", sorted(AGAIN))
def test_edited_source_is_compiled_again(project, hook, how):
    project.write("tariff.py", OLD)
    if hook:  # a first process writes the cache: the one below starts warm
        project.run("import tariff")
    res = project.run(EDIT + AGAIN[how] + "\nout = [before, fn(x).tolist()]", hook=hook)
    assert res.out == [[2.0, 4.0], [4.0, 7.0]]


def test_warm_import_still_uses_the_cache(project):
    project.write("tariff.py", OLD)
    project.run("import tariff")
    res = project.run("import tariff, numpy as np\nout = tariff.fee(np.array([1.0])).tolist()")
    assert res.out == [2.0]
    assert res.stats["compiled"] == 0 and res.stats["disk_cache_hits"] == 1


def _install_wheel_module(site):
    """Package ``avstale`` with module ``m`` and the artifacts the build backend adds, installed
    by hand under `site` and byte-compiled as an installer does."""
    import compileall

    from array_vectorize.build import config, precompile
    from array_vectorize.build.wheelfile import Entry

    entries = {"avstale/__init__.py": Entry(b""), "avstale/m.py": Entry(OLD.encode())}
    artifacts, report = precompile.precompile(entries, "avstale-0.1.0.dist-info", config.from_table({}), str(site.parent))
    assert len(report.precompiled) == 1
    for arcname, entry in {**entries, **artifacts}.items():
        path = site / arcname
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(entry.data)
    assert compileall.compile_dir(str(site / "avstale"), quiet=2)


WHEEL_EDIT = f"""
import importlib, os, sys
import numpy as np
import avstale.m as m
x = np.array([1.0, 2.0])
first = (m.fee(x).tolist(), dict(_av.stats()))
m = importlib.reload(m)  # unchanged: the artifacts still serve
again = (m.fee(x).tolist(), dict(_av.stats()))
with open(m.__file__, "w") as f:
    f.write({NEW!r})
m = importlib.reload(m)
out = [first, again, m.fee(x).tolist()]
"""


@pytest.mark.parametrize("hook", [True, False], ids=["hook", "decorator"])
def test_edited_wheel_module_is_compiled_again(project, hook):
    site = project.root / "site"
    _install_wheel_module(site)
    res = project.run(WHEEL_EDIT, hook=hook, env={"PYTHONPATH": str(site)})
    (first, first_stats), (again, again_stats), edited = res.out
    assert first == again == [2.0, 4.0] and edited == [4.0, 7.0]
    assert first_stats["compiled"] == again_stats["compiled"] == 0
    assert again_stats["precompiled_hits"] == 2
