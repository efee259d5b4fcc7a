"""Issue 28 ("never wrong, round 3") through the import hook, each in a fresh interpreter
(``hookproj.Project``): an interrupted large call leaves no mark behind, on the cold import (the
hook's code) and on the warm one (the cached code, made lazily); a cache entry missing a field,
or holding one of the wrong type, is a miss, compiled and rewritten, never an import error."""

from __future__ import annotations

import marshal
import math

import pytest
from hookproj import Project

from array_vectorize import _core
from array_vectorize.hook import cachefile

LOADS = '''\
from array_vectorize import vectorize


@vectorize
def clearance(load, margin):
    if load > margin:
        return load - margin
    return 0.0
'''

INTERRUPTED = """
import numpy as np
from array_vectorize.runtime import blocked
import loads
blocked.THRESHOLD, blocked.BLOCK, blocked.MIN_OPERATIONS = 20, 7, 0
ran = []
run_blocked = blocked._run_blocked
def counting(dispatch, args):
    result = run_blocked(dispatch, args)
    ran.append(result is not blocked._DECLINED)
    return result
blocked._run_blocked = counting
send = blocked.send_large
def interrupted(marker):
    send(marker)
    raise KeyboardInterrupt
blocked.send_large = interrupted
load = np.linspace(-4.0, 9.0, 43)
try:
    loads.clearance(load, 1.5)
except KeyboardInterrupt:
    pass
blocked.send_large = send
got = loads.clearance(load, 3)
want = [loads.clearance._vectorized_original(float(v), 3) for v in load]
after = list(ran)
loads.clearance(load, 1.5)
out = {"same": got.tolist() == want, "dtype": str(got.dtype), "blocked_int_call": after, "blocked_float_call": ran[len(after):]}
"""


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_an_interrupt_after_the_mark_leaves_no_mark_behind(project: Project, warm):
    # Item 7: the mark names the generated entry's frame, also when the entry was made lazily
    # from the cache (its first call goes through emit.py's stand-in).
    project.write("loads.py", LOADS)
    if warm:
        project.run("import loads")
    res = project.run(INTERRUPTED)
    assert res.stats["hook_hits"] == 1 and res.stats["disk_cache_hits"] == int(warm)
    assert res.out == {"same": True, "dtype": "float64", "blocked_int_call": [], "blocked_float_call": [True]}


RATES = '''\
import math
from array_vectorize import vectorize

SCHEDULE = {"relief": 1_000.0, "rate": 0.4, "currency": "GBP"}  # an object (D14), not a table


@vectorize
def net_income(gross):
    """Income after the tax of one band."""
    return gross - max(gross - SCHEDULE["relief"], 0.0) * SCHEDULE["rate"]


@vectorize(protect_domains=True)
def log_growth(value, base):
    if value > 0.0:
        return math.log(value / base)
    return 0.0
'''

#: A value of another type than each cached field holds.
_WRONG_TYPE = {str: 7, int: "7", dict: [], list: {}, type(None): 7}

#: Fields of the right type whose items (or value) have another shape than the writer's: checked
#: like the fields (cachefile.entries_problem checks a file's entries together, item 8).
_WRONG_ITEMS = [
    ("assumptions", [["max", ("builtin", "max")]]),
    ("assumptions", [("max",)]),
    ("assumptions", [("max", ())]),
    ("assumptions", [("max", (7,))]),
    ("assumptions", [(7, ("builtin", "max"))]),
    ("assumptions", [7]),
    ("hidden", [("object", 7)]),
    ("hidden", [{"object": 0, "SCHEDULE": 1}]),
    ("element_sites", [("call", "max", "3")]),
    ("element_sites", [("call", "max")]),
    ("helpers", [7]),
    ("exact_helpers", [None]),
    ("options", {"protect_domains": False}),
    ("fast_len", -1),
    ("fast_len", 10**9),
]


def _rewrite(path, mutate) -> None:
    """The cache file at `path` with its record changed by `mutate`, under a header that matches
    (key, length, checksum): as the hook's writer would have written it."""
    data = path.read_bytes()
    record = marshal.loads(data[cachefile.HEADER_SIZE :])
    mutate(record)
    payload = marshal.dumps(record)
    length = len(payload).to_bytes(8, "little") + _core.checksum64(payload).to_bytes(8, "little")
    path.write_bytes(data[:76] + length + payload)


def test_a_cache_entry_missing_a_field_or_holding_a_wrong_type_is_recompiled(project: Project):
    # Item 8: an entry with the right key and checksum but without `fast_source` (now: any of
    # its fields, or one whose items have another shape) failed the import with KeyError. Each broken copy is its own module, so one
    # warm interpreter imports them all.
    project.write("rates_0.py", RATES)
    cold = project.run("import rates_0")
    (path,) = project.cache_files()
    entries = cachefile.decode_cache(path.read_bytes(), None)
    cases = []
    for i, entry in enumerate(entries):
        for field, value in entry.items():
            cases.append((i, field, None))
            cases.append((i, field, _WRONG_TYPE.get(type(value), "wrong")))
    cases += [(0, field, value) for field, value in _WRONG_ITEMS]
    cases.append((None, "entries", None))
    for k, case in enumerate(cases, start=1):
        project.write(f"rates_{k}.py", RATES)
        (project.root / "__pycache__" / path.name.replace("rates_0", f"rates_{k}")).write_bytes(path.read_bytes())
        target = project.root / "__pycache__" / path.name.replace("rates_0", f"rates_{k}")

        def mutate(record, case=case):
            i, field, value = case
            holder = record if i is None else record["entries"][i]
            if value is None:
                del holder[field]
            else:
                holder[field] = value

        _rewrite(target, mutate)
    body = [
        "import numpy as np",
        "gross = np.array([0.0, 999.5, 1_000.0, 52_000.25, -3.0, np.inf])",
        "out = []",
    ]
    for k in range(len(cases) + 1):
        body += [
            f"import rates_{k} as m",
            "out.append([list(map(repr, m.net_income(gross).tolist())), list(map(repr, m.log_growth(gross, 2.0).tolist()))])",
        ]
    res = project.run("\n".join(body))
    assert cold.returncode == 0
    want = res.out[0]
    gross = [0.0, 999.5, 1_000.0, 52_000.25, -3.0, float("inf")]
    assert want[0] == [repr(g - max(g - 1_000.0, 0.0) * 0.4) for g in gross]
    assert want[1] == [repr(math.log(g / 2.0) if g > 0.0 else 0.0) for g in gross]
    for case, got in zip(cases, res.out[1:]):
        assert got == want, case
    assert res.hook_stat("hook_cache_invalid") == len(cases), [c[:2] for c in cases]
    for k, case in enumerate(cases, start=1):
        rewritten = project.root / "__pycache__" / path.name.replace("rates_0", f"rates_{k}")
        assert cachefile.decode_cache(rewritten.read_bytes(), None) == [dict(e) for e in cachefile.decode_cache(path.read_bytes(), None)], case


def test_a_module_too_deep_for_pythons_parser_is_left_to_the_normal_import(project: Project):
    # Item 9: CPython cannot parse a 12k-`elif` chain (MemoryError, with or without the hook);
    # the hook's own reading of it (its imports, the docstrings' compile) must not fail first,
    # and the import fails as the normal import system fails.
    lines = ["from array_vectorize import vectorize", "", "", "@vectorize", "def band(income):", "    if income < 0.0:", "        return 0.0"]
    for i in range(1, 12_001):
        lines += [f"    elif income < {i * 1000}.0:", f"        return {i * 0.0001!r}"]
    project.write("bands.py", "\n".join(lines + ["    return 0.45", ""]))
    plain = project.run("import bands", hook=False, ok=False)
    hooked = project.run("import bands", ok=False, env={"ARRAY_VECTORIZE_DEBUG": "hook"})
    assert plain.stderr.splitlines()[-1] == hooked.stderr.splitlines()[-1] == "MemoryError"
    assert "array_vectorize" not in hooked.stderr.partition("Traceback")[2], hooked.stderr
    assert "bands: compiled (0 compiled, 0 deferred to the decorator, 1 rejected)" in hooked.stderr, hooked.stderr
