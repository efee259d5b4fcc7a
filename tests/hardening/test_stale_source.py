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

import math

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


# Issue 28 item 2: the code that runs was compiled from the text as it was when its module was
# loaded; a function decorated after the file changed (a factory called after a `git pull`
# under a long-running process) must be compiled from that text, or refused with the file named,
# never compiled from the new text. Every text the decorator compiles is checked against the
# live code object (array_vectorize/live_source.py).

FACTORY = '''\
from array_vectorize import vectorize


def make(rate):
    @vectorize
    def accrue(balance):
        return balance * rate
    return accrue


def make_lambda():
    return vectorize(lambda balance: balance * 2.0)


@vectorize
def fee(balance):
    return balance * 0.5
'''
FACTORY_EDITED = FACTORY.replace("balance * rate", "balance * rate + 100.0").replace("balance * 2.0", "balance * 3.0")

LATE = f"""
import os, sys
import numpy as np
sys.path.insert(0, os.getcwd())
import ledger
x = np.array([1.0, 2.0])
EARLY
with open(ledger.__file__, "w") as f:
    f.write({FACTORY_EDITED!r})
out = []
for make in (lambda: ledger.make(2.0), ledger.make_lambda, lambda: ledger.make(2.0)):
    try:
        out.append(make()(x).tolist())
    except Exception as e:
        out.append(type(e).__name__ + ": " + str(e).splitlines()[1])
"""

REFUSED = "the file changed on disk after its module was loaded"


@pytest.mark.parametrize("early", ["none", "a-call", "a-decoration-at-import"])
def test_a_function_decorated_after_its_file_changed(project, early):
    # Without the hook nothing keeps the text the module was loaded from unless something read
    # it before the edit (linecache, read by a first decoration: a factory called, a marked
    # function of the module): refused, naming the file and line; with it, compiled from it.
    project.write("ledger.py", FACTORY if early == "a-decoration-at-import" else FACTORY.split("\n\n\n@vectorize")[0] + "\n")
    body = LATE.replace("EARLY", "ledger.make(2.0); ledger.make_lambda()" if early == "a-call" else "")
    res = project.run(body, hook=False)
    if early != "none":
        assert res.out == [[2.0, 4.0], [2.0, 4.0], [2.0, 4.0]]
    else:
        path = project.root / "ledger.py"
        assert res.out[0].startswith(f"VectorizationError: {path}:5:1: the text of `make.<locals>.accrue` there is not the code that runs")
        assert REFUSED in res.out[0] and res.out[2] == res.out[0]
        assert res.out[1].startswith(f"VectorizationError: {path}:12:1: the text of `make_lambda.<locals>.<lambda>`")


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_function_decorated_after_its_file_changed_under_the_hook(project, warm):
    # The hook keeps the bytes it read at import: the text the module's code comes from.
    project.write("ledger.py", FACTORY)
    if warm:
        project.run("import ledger")
    res = project.run(LATE.replace("EARLY", ""))
    assert res.out == [[2.0, 4.0], [2.0, 4.0], [2.0, 4.0]]
    assert res.stats["compiled"] >= 3  # each factory call compiled live, from the kept text


def test_a_function_decorated_after_its_installed_file_changed(project):
    # A wheel's manifest hashes the installed module when it is read (at the import's first
    # decoration); those bytes are the text the module's code comes from.
    import compileall

    from array_vectorize.build import config, precompile
    from array_vectorize.build.wheelfile import Entry

    site = project.root / "site"
    entries = {"avledger/__init__.py": Entry(b""), "avledger/ledger.py": Entry(FACTORY.encode())}
    # `make` is never called by the module's own code: its function is left to run time (issue 31).
    table = {"runtime": ["avledger.ledger:make.<locals>.accrue"]}
    artifacts, report = precompile.precompile(entries, "avledger-0.1.0.dist-info", config.from_table(table), str(site.parent))
    assert report.precompiled == ["avledger.ledger:fee"]
    for arcname, entry in {**entries, **artifacts}.items():
        path = site / arcname
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(entry.data)
    assert compileall.compile_dir(str(site / "avledger"), quiet=2)
    body = LATE.replace("import ledger", "import avledger.ledger as ledger").replace("EARLY", "")
    res = project.run(body, hook=False, env={"PYTHONPATH": str(site)})
    assert res.out == [[2.0, 4.0], [2.0, 4.0], [2.0, 4.0]]
    assert res.stats["precompiled_hits"] == 1


OTHER_TEXT = f"""
import sys
import numpy as np
sys.path.insert(0, ".")
ns = {{"__name__": "ledger_exec"}}
exec(compile({FACTORY_EDITED!r}, "ledger.py", "exec"), ns)  # another text under the file's name
x = np.array([1.0, 2.0])
out = []
for make in (lambda: ns["make"](2.0), ns["make_lambda"]):
    try:
        out.append(make()(x).tolist())
    except Exception as e:
        out.append(type(e).__name__ + ": " + str(e).splitlines()[1])
ns = {{"__name__": "ledger_same"}}
exec(compile({FACTORY!r}, "ledger.py", "exec"), ns)  # the file's own text: compiled as usual
out.append([ns["make"](2.0)(x).tolist(), ns["make_lambda"]()(x).tolist()])
"""


@pytest.mark.parametrize("hook", [True, False], ids=["hook", "decorator"])
def test_code_compiled_from_other_text_under_a_files_name(project, hook):
    project.write("ledger.py", FACTORY)
    res = project.run(OTHER_TEXT, hook=hook)
    assert res.out[0].startswith("VectorizationError: ledger.py:5:1: the text of `make.<locals>.accrue`"), res.out
    assert res.out[1].startswith("VectorizationError: ledger.py:12:1: the text of `make_lambda.<locals>.<lambda>`"), res.out
    assert res.out[2] == [[2.0, 4.0], [2.0, 4.0]]


TWO_LAMBDAS = """\
from array_vectorize import vectorize

double, triple = vectorize(lambda x: x * 2.0), vectorize(lambda x: x * 3.0)
"""


@pytest.mark.parametrize("hook", [True, False], ids=["hook", "decorator"])
def test_two_lambdas_on_one_line(project, hook):
    # The compiler reads the first lambda of a line: the second one's code is not that text, and
    # was compiled from it (both gave 2x).
    project.write("scales.py", TWO_LAMBDAS)
    res = project.run("import scales", hook=hook, ok=False)
    assert "VectorizationError" in res.stderr and "scales.py:3:1: the text of `<lambda>` there is not the code that runs" in res.stderr
    assert "several lambdas" in res.stderr, res.stderr


EDITED_HELPER = f"""
import os, sys
import numpy as np
sys.path.insert(0, os.getcwd())
import payroll
text = open(payroll.__file__).read()
with open(payroll.__file__, "w") as f:
    f.write(text.replace("gross * 0.2", "gross * 0.9"))
x = np.array([100.0, 250.0])
try:
    out = payroll.make()(x).tolist()
except Exception as e:
    out = type(e).__name__ + ": " + str(e)
"""


def test_a_helper_whose_file_changed_is_not_compiled_from_the_new_text(project):
    project.write(
        "payroll.py",
        "from array_vectorize import vectorize\n\n\ndef tax(gross):\n    return gross * 0.2\n\n\n"
        "def make():\n    @vectorize\n    def net(gross):\n        return gross - tax(gross)\n    return net\n",
    )
    res = project.run(EDITED_HELPER, hook=False)
    assert res.out.startswith("VectorizationError") and "`tax` whose text in its file is not the code that runs" in res.out, res.out


def test_functions_in_module_level_blocks_and_classes_compile_as_usual(project):
    # The check compiles each function's text inside stand-ins of what encloses it: a
    # module-level `if`/`try`, a class (private names mangled, `super()`'s cell), a closure, a
    # lambda's; none of them may be refused.
    project.write(
        "shapes.py",
        "import math\nfrom array_vectorize import vectorize\n\nif True:\n    @vectorize\n    def area(r):\n"
        "        return math.pi * r * r\n\ntry:\n    half = vectorize(lambda x: x / 2.0)\nexcept ImportError:\n    pass\n\n\n"
        "class Ring:\n    __scale = 2.0\n\n    @staticmethod\n    @vectorize\n    def width(r):\n        return r * 2.0\n\n\n"
        "def make(k):\n    def inner(x):\n        return x * k\n    return vectorize(inner)\n\n\n"
        "def make_lambda(k):\n    return vectorize(lambda x: x * k)\n",
    )
    res = project.run(
        "import numpy as np, shapes\nx = np.array([1.0, 2.0])\n"
        "out = [f(x).tolist() for f in (shapes.area, shapes.half, shapes.Ring.width, shapes.make(3.0), shapes.make_lambda(-1.0))]",
        hook=False,
    )
    assert res.out == [[math.pi, math.pi * 4], [0.5, 1.0], [2.0, 4.0], [3.0, 6.0], [-1.0, -2.0]]


def test_a_module_bound_without_an_import_next_to_an_imported_one(project):
    # CPython compiles `math.sqrt(...)` (a name an `import` binds) as an attribute load and a
    # call, `m2.floor(...)` (a module bound by an assignment) as a method call; the check must
    # guess both, from the `import`s of the module's text.
    project.write(
        "grid.py",
        "import importlib\nimport math\nfrom array_vectorize import vectorize\n\nm2 = importlib.import_module('math')\n\n\n"
        "@vectorize\ndef rise(x):\n    return math.sqrt(x * x + 1.0) + m2.floor(x)\n",
    )
    res = project.run("import numpy as np, grid\nout = grid.rise(np.array([0.0, 2.5, -1.5])).tolist()", hook=False)
    assert res.out == [math.sqrt(x * x + 1.0) + math.floor(x) for x in (0.0, 2.5, -1.5)], res.out


def _margin_call(price, floor):
    # An assert in a module pytest loads: its hook rewrites it, so the live code is not what
    # CPython compiles from this text (live_source compiles the text through the same rewrite).
    assert floor >= 0.0, f"negative floor {floor}"
    return max(price - floor, 0.0)


def test_a_function_of_a_module_pytest_rewrote_compiles():
    import numpy as np

    from array_vectorize import vectorize

    loader = type(globals()["__loader__"])
    assert (loader.__module__, loader.__name__) == ("_pytest.assertion.rewrite", "AssertionRewritingHook")
    vec = vectorize(_margin_call)
    price = np.array([0.0, 5.0, 120.5, -3.0, math.inf])
    expected = [_margin_call(p, 2.5) for p in price.tolist()]
    assert vec(price, 2.5).tolist() == expected
    with pytest.raises(AssertionError, match="negative floor -1.0"):
        vec(price, -1.0)
