"""Source text CPython accepts is read as CPython reads it: form feeds (page breaks) in a
function's body, a module holding a long literal next to its marked functions."""

from __future__ import annotations

import numpy as np
from hookproj import Project

from array_vectorize import _core, vectorize
from array_vectorize.runtime.registry import helper_globals
from sourcefile import from_source

# A form feed at the start of a line resets the indentation count (CPython's tokenizer): the
# page breaks below are inside `discount`'s body.
PAGED = (
    "def discount(price, qty):\n"
    "    rate = 0.05 if qty > 10.0 else 0.0\n"
    "\x0c\n"
    "\x0c    net = price * (1.0 - rate)\n"
    "    \x0c\n"
    "    return net * qty\n"
    "\n"
    "\x0cPAGE = 2\n"
)


def _static(source: str, path: str) -> dict:
    return {e["qualname"]: e for e in _core.compile_module(source, path)}


def _call_generated(entry: dict, *args):
    namespace = helper_globals()
    exec(entry["source"], namespace)
    return namespace[entry["entry"]](*args)


def test_form_feed_lines_stay_in_the_function():
    price, qty = np.array([10.0, 2.5, 100.0]), np.array([1.0, 11.0, 20.0])
    fn = from_source(PAGED, name="discount")
    expected = [fn(p, q) for p, q in zip(price.tolist(), qty.tolist())]
    assert vectorize(fn)(price, qty).tolist() == expected
    marked = "from array_vectorize import vectorize\n\n@vectorize\n" + PAGED
    entry = _static(marked, "paged.py")["discount"]
    assert entry["status"] == "ok", entry
    assert _call_generated(entry, price, qty).tolist() == expected


def _module_with_literal(n: int) -> str:
    table = ",\n    ".join(f"{i * 0.5}" for i in range(n))
    return (
        "from array_vectorize import vectorize\n\n"
        f"TABLE = [\n    {table},\n]\n"
        f"WEIGHTS = ({', '.join(str(i) for i in range(n))})\n\n\n"
        "@vectorize\ndef premium(age, base):\n    return base * (1.0 + 0.01 * age)\n"
    )


def test_a_long_literal_elsewhere_in_the_module_is_not_compiled():
    entry = _static(_module_with_literal(5000), "tables.py")["premium"]
    assert entry["status"] == "ok", entry
    age, base = np.array([20.0, 65.0]), np.array([100.0, 80.0])
    assert _call_generated(entry, age, base).tolist() == [100.0 * 1.2, 80.0 * 1.65]


def test_the_hook_compiles_a_module_with_a_long_literal(project: Project):
    project.write("tables.py", _module_with_literal(5000))
    body = "import numpy as np, tables\nout = tables.premium(np.array([20.0]), np.array([100.0])).tolist()"
    project.run(body)
    warm = project.run(body)
    assert warm.stats["disk_cache_hits"] == 1 and warm.stats["compiled"] == 0, warm.stats
    assert warm.out == [120.0]
