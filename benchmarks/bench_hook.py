"""Import hook benchmarks (issue 4; DESIGN.md section 6): what ``import array_vectorize.auto``
costs and saves at import time.

    python benchmarks/bench_hook.py [--quick]

Every figure comes from fresh interpreters (``sys.executable``), one import per process, repeated;
variants are run in rotation so that load on the machine hits all of them; the figure is the
median. Two scopes, each timed in CPU time (user + system: what the import costs, robust to other
load on the machine) and in wall time:

- *module*: around the ``import`` statement inside the child, with ``array_vectorize`` (and the
  hook, where on) already imported and a ``gc.collect()`` just before, so that every variant
  starts from the same collector state: the import's own cost;
- *process*: the whole child (interpreter start-up included), CPU time from ``getrusage``.

1. A module with 50 marked functions: warm import with the hook, the same module with the hook
   off (each decorator compiles at run time), and the same module with the decorators removed;
   the warm and plain imports also in a process that has imported NumPy first, as any process
   that calls these functions on arrays has.
2. Unmarked modules imported with and without the hook: about 160 standard-library modules (the
   hook skips the standard library by location: the cost of its finder alone) and the installed
   third-party packages of the test environment (NumPy, pytest, Hypothesis, Pygments, ...: about
   300 modules: the cheap bail-out, a ``stat`` against the record of unmarked sources, see
   ``hook/__init__.py``; the first import after an edit reads and searches the source).
3. Cold import with the hook (no cache file): the cost per marked function of compiling and
   writing the cache, next to the decorator compiling at run time.
4. Floors of any warm import under the product's contract (the decorator returns the final
   function, with its generated code, docstring and source, DESIGN.md section 4): the same module
   with an identity decorator in place of ``vectorize`` (what 50 decorator calls cost at the
   least), and the same again reading and unmarshalling the marked module's cache file (what
   holding the generated code of 50 functions costs, before any key, check or decorator work).
"""

from __future__ import annotations

import ast
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N_FUNCTIONS = 50

# Pure-Python standard-library modules and packages with no side effects on import.
STDLIB = """
abc argparse ast asyncio base64 bdb binascii bisect bz2 calendar cmd code codecs codeop
collections colorsys compileall concurrent.futures configparser contextlib contextvars copy copyreg
cProfile csv ctypes dataclasses datetime decimal difflib dis doctest email email.mime.text
email.parser email.policy encodings.idna enum filecmp fileinput fnmatch fractions ftplib functools
getopt getpass gettext glob graphlib gzip hashlib heapq hmac html html.parser http http.client
http.cookiejar http.cookies http.server imaplib importlib.metadata importlib.resources inspect io
ipaddress json json.decoder keyword linecache locale logging logging.handlers lzma mailbox
mimetypes modulefinder multiprocessing netrc numbers opcode operator optparse os pathlib pdb pickle
pickletools pkgutil platform plistlib poplib pprint profile pstats py_compile pyclbr pydoc queue
quopri random re reprlib rlcompleter runpy sched secrets selectors shelve shlex shutil signal site
smtplib socket socketserver sqlite3 ssl stat statistics string stringprep struct subprocess symtable
sysconfig tabnanny tarfile tempfile textwrap threading timeit token tokenize tomllib trace traceback
tracemalloc types typing unittest unittest.mock urllib.parse urllib.request uuid warnings wave
weakref webbrowser wsgiref.simple_server xml.dom.minidom xml.etree.ElementTree xml.sax xmlrpc.client
zipapp zipfile zipimport zoneinfo
""".split()

# Installed by the test extra (pyproject.toml); imported as a set, none marks a function.
THIRD_PARTY = """
numpy hypothesis pytest packaging.version packaging.specifiers pygments.lexers.python
pygments.formatters.html array_api_strict sortedcontainers pyproject_hooks build iniconfig
""".split()


def _marked_module(n: int, marked: bool) -> str:
    """`n` realistic scalar functions (branches, a helper, math, a frozen constant)."""
    out = ["import math", "from array_vectorize import vectorize" if marked else "", "", "EPS = 1e-12", "", ""]
    out += ["def clip01(v):", "    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)", "", ""]
    for i in range(n):
        if marked:
            out.append("@vectorize")
        out += [
            f"def f{i}(x, y, k):",
            f'    """Kernel number {i}."""',
            f"    if x > y + {i}.5:",
            "        d = x - y",
            f"        return math.sqrt(d * d + EPS) * {i + 1}.0",
            f"    t = clip01((x + k) / (abs(y) + 1.0))",
            f"    return t * {i}.25 - y if t > 0.5 else -t",
            "",
            "",
        ]
    return "\n".join(out)


def _floor_module(n: int, cache_file: str | None) -> str:
    """The marked module with ``vectorize`` an identity decorator defined in it; with
    `cache_file`, the module also reads that file and unmarshals its payload first, as a warm
    import does (without the key, the checksum or any decorator work)."""
    head = ["def vectorize(fn):", "    return fn", ""]
    if cache_file is not None:
        from array_vectorize.hook import cachefile

        head = [
            "import marshal as _marshal, os as _os",
            f"_fd = _os.open({cache_file!r}, _os.O_RDONLY)",
            "_data = _os.read(_fd, _os.fstat(_fd).st_size)",
            "_os.close(_fd)",
            f"_entries = _marshal.loads(memoryview(_data)[{cachefile.HEADER_SIZE}:])",
            *head,
        ]
    return _marked_module(n, True).replace("from array_vectorize import vectorize", "\n".join(head))


def _env(root: Path) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONOPTIMIZE", "PYTHONPATH")
        and not k.startswith("ARRAY_VECTORIZE_")
    }
    env["PYTHONPATH"] = str(root)
    return env


# The child imports no module of its own beyond the built-in gc, sys and time, and reports with
# repr(), read back with ast.literal_eval: `import json` (json.decoder -> re -> enum, functools,
# collections) would run in every child, a few ms of CPU that every *process* figure would carry
# and would hide what `import array_vectorize` itself loads (it once loaded enum and copy: docs/hook.md).
_CHILD = """
import gc, sys, time
{prelude}
names = {names!r}
gc.collect()
c0, t0 = time.process_time(), time.perf_counter()
for name in names:
    __import__(name)
c1, t1 = time.process_time(), time.perf_counter()
av = sys.modules.get("array_vectorize")
out = {{"cpu": (c1 - c0) * 1e6, "wall": (t1 - t0) * 1e6, "stats": av.stats() if av else {{}}}}
if "_acc" in globals():
    out["hook_self"] = (_acc[0] - _acc[1]) / 1e3
print(repr(out))
"""

# The hook's own time, measured inside the process: time in its find_spec minus time in the
# finders it delegates to (perf_counter_ns brackets of a few microseconds: little noise).
_SELF_TIMED = """import array_vectorize.auto
from array_vectorize import hook as _f
_acc = [0, 0]
_fs, _dl, _ns = _f.VectorizeFinder.find_spec, _f.VectorizeFinder._delegate, time.perf_counter_ns
def _find_spec(self, *a):
    t = _ns(); r = _fs(self, *a); _acc[0] += _ns() - t; return r
def _delegate(self, *a):
    t = _ns(); r = _dl(self, *a); _acc[1] += _ns() - t; return r
_f.VectorizeFinder.find_spec, _f.VectorizeFinder._delegate = _find_spec, _delegate
"""


def _child(root: Path, prelude: str, names: list[str], before=None) -> dict:
    """Times of one fresh interpreter importing `names` (us): module_cpu, module_wall,
    process_cpu, process_wall; and its stats()."""
    if before is not None:
        before()
    code = _CHILD.format(prelude=prelude, names=names)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code], cwd=root, env=_env(root), capture_output=True, text=True
    )
    wall = (time.perf_counter() - t0) * 1e6
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"child failed: {proc.stderr.strip()[-2000:]}")
    data = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e6
    return {
        "hook_self": data.get("hook_self"),
        "module_cpu": data["cpu"],
        "module_wall": data["wall"],
        "process_cpu": cpu,
        "process_wall": wall,
        "stats": data["stats"],
    }


_CLOCKS = ("module_cpu", "module_wall", "process_cpu", "process_wall")


def _rotate(variants: dict, repeats: int) -> dict:
    """Runs every variant `repeats` times, in rotation (alternating direction); medians of each
    clock, and the stats of the last run."""
    samples = {name: {c: [] for c in _CLOCKS} for name in variants}
    own = {name: [] for name in variants}
    stats = {}
    order = list(variants)
    for i in range(repeats):
        for name in order if i % 2 == 0 else order[::-1]:
            res = _child(*variants[name])
            for c in _CLOCKS:
                samples[name][c].append(res[c])
            if res["hook_self"] is not None:
                own[name].append(res["hook_self"] / res["module_wall"])
            stats[name] = res["stats"]
    return {
        name: {
            **{c: statistics.median(v) for c, v in s.items()},
            **{f"{c}_min": min(v) for c, v in s.items()},
            "hook_share": statistics.median(own[name]) if own[name] else None,
            "stats": stats[name],
        }
        for name, s in samples.items()
    }


# long: the hook benchmark's measurements one after another, each beside the floor it is read against
def run(quick: bool = False) -> dict:
    # Ratios of two process medians move by a few percent on a shared machine: 31 runs each.
    repeats = 5 if quick else 31
    with tempfile.TemporaryDirectory(prefix="bench-hook-") as tmp:
        root = Path(tmp)
        (root / "marked50.py").write_text(_marked_module(N_FUNCTIONS, True))
        (root / "plain50.py").write_text(_marked_module(N_FUNCTIONS, False))
        cache_dir = root / "__pycache__"
        # Warm CPython's .pyc files and the hook's cache once.
        _child(root, "import array_vectorize.auto", ["marked50", "plain50"])
        _child(root, "", ["plain50"])

        # Floors (item 4 of the module doc), next to the cache file just written.
        (cache_file,) = cache_dir.glob("marked50.*.avc")
        (root / "identity50.py").write_text(_floor_module(N_FUNCTIONS, None))
        (root / "identity_cache50.py").write_text(_floor_module(N_FUNCTIONS, str(cache_file)))
        _child(root, "", ["identity50", "identity_cache50"])

        def drop_hook_cache():
            for p in cache_dir.glob("marked50.*.avc"):
                p.unlink()

        m = _rotate(
            {
                "hook, warm": (root, "import array_vectorize.auto", ["marked50"]),
                "hook off (decorators compile)": (root, "import array_vectorize", ["marked50"]),
                "plain undecorated": (root, "import array_vectorize", ["plain50"]),
                "plain undecorated, no array_vectorize": (root, "", ["plain50"]),
                "floor: identity decorators": (root, "import array_vectorize", ["identity50"]),
                "floor: identity decorators, cache file read and unmarshalled": (
                    root,
                    "import array_vectorize",
                    ["identity_cache50"],
                ),
                "hook, cold (no cache file)": (root, "import array_vectorize.auto", ["marked50"], drop_hook_cache),
                # A process that calls these functions has an array library loaded: the same two
                # imports after NumPy's (which also loads the stdlib modules the hook defers).
                "hook, warm, NumPy loaded": (root, "import numpy, array_vectorize.auto", ["marked50"]),
                "plain undecorated, NumPy loaded": (root, "import numpy, array_vectorize", ["plain50"]),
            },
            repeats,
        )
        # Leave a warm cache behind for nothing else; measure start-up alone for reference.
        base = _rotate({"interpreter start-up": (root, "", []), "import array_vectorize": (root, "import array_vectorize", [])}, repeats)

        std_repeats = 5 if quick else 25
        # The first hooked import of an unmarked module reads it; later ones find it recorded.
        _child(root, "import array_vectorize.auto", STDLIB + THIRD_PARTY)
        s = _rotate(
            {
                "stdlib, hook on": (root, "import array_vectorize.auto", STDLIB),
                "stdlib, hook off": (root, "import array_vectorize", STDLIB),
                "third-party, hook on": (root, "import array_vectorize.auto", THIRD_PARTY),
                "third-party, hook off": (root, "import array_vectorize", THIRD_PARTY),
                "stdlib, hook on, self-timed": (root, _SELF_TIMED, STDLIB),
                "third-party, hook on, self-timed": (root, _SELF_TIMED, THIRD_PARTY),
            },
            std_repeats,
        )

    warm, off, plain = m["hook, warm"], m["hook off (decorators compile)"], m["plain undecorated"]
    cold = m["hook, cold (no cache file)"]
    bare = m["plain undecorated, no array_vectorize"]
    floor_calls = m["floor: identity decorators"]
    floor_cache = m["floor: identity decorators, cache file read and unmarshalled"]
    on, no = s["stdlib, hook on"], s["stdlib, hook off"]
    tp_on, tp_off = s["third-party, hook on"], s["third-party, hook off"]
    rows = []
    for name, r in [*m.items(), *base.items(), *s.items()]:
        st = r["stats"]
        rows.append(
            {
                "variant": name,
                "module cpu us": round(r["module_cpu"], 1),
                "module wall us": round(r["module_wall"], 1),
                "process cpu ms": round(r["process_cpu"] / 1e3, 2),
                "process wall ms": round(r["process_wall"] / 1e3, 2),
                "compiled": st.get("compiled", 0),
                "hook cache hits": st.get("hook_cache_hits", 0),
                "hook skipped": st.get("hook_skipped", 0),
            }
        )

    def ratio(a, b, clock):
        return a[clock] / b[clock]

    warm_vs_off = ratio(warm, off, "module_cpu")
    warm_vs_plain_module = ratio(warm, plain, "module_cpu")
    warm_vs_plain_process = ratio(warm, plain, "process_cpu")
    warm_np, plain_np = m["hook, warm, NumPy loaded"], m["plain undecorated, NumPy loaded"]
    warm_vs_plain_numpy = ratio(warm_np, plain_np, "process_cpu")
    stdlib_overhead = ratio(on, no, "module_cpu")
    third_party_overhead = ratio(tp_on, tp_off, "module_cpu")
    std_share = s["stdlib, hook on, self-timed"]["hook_share"]
    tp_share = s["third-party, hook on, self-timed"]["hook_share"]
    per_fn = {
        name: round((r["module_cpu"] - plain["module_cpu"]) / N_FUNCTIONS, 1)
        for name, r in [("warm", warm), ("cold", cold), ("hook off", off)]
    }
    return {
        "rows": rows,
        "repeats": {"marked module": repeats, "unmarked sets": std_repeats},
        "modules imported": {"stdlib names": len(STDLIB), "third-party names": len(THIRD_PARTY)},
        "per marked function, CPU us over the plain module": {
            "warm import with the hook": per_fn["warm"],
            "cold import with the hook (compile, write the cache)": per_fn["cold"],
            "hook off (the decorator compiles at run time)": per_fn["hook off"],
        },
        "ratios (CPU time unless noted)": {
            "warm hook / hook off, module": round(warm_vs_off, 3),
            "warm hook / plain undecorated, module": round(warm_vs_plain_module, 2),
            "floor, identity decorators / plain undecorated, module": round(ratio(floor_calls, plain, "module_cpu"), 2),
            "floor, identity decorators and the cache file unmarshalled / plain undecorated, module": round(
                ratio(floor_cache, plain, "module_cpu"), 2
            ),
            "warm hook / plain undecorated, process (both import array_vectorize)": round(warm_vs_plain_process, 3),
            "warm hook / plain undecorated, process, wall": round(ratio(warm, plain, "process_wall"), 3),
            "warm hook / plain module without array_vectorize at all, process": round(ratio(warm, bare, "process_cpu"), 3),
            "warm hook / plain undecorated, process, NumPy loaded in both": round(warm_vs_plain_numpy, 3),
            "warm hook / plain undecorated, module, NumPy loaded in both": round(ratio(warm_np, plain_np, "module_cpu"), 2),
            "stdlib: hook on / off, module": round(stdlib_overhead, 4),
            "stdlib: hook on / off, module, wall": round(ratio(on, no, "module_wall"), 4),
            "third-party: hook on / off, module": round(third_party_overhead, 4),
            "third-party: hook on / off, module, wall": round(ratio(tp_on, tp_off, "module_wall"), 4),
        },
        "the hook's own share of the import time, timed inside the process (median)": {
            "stdlib": f"{std_share:.2%}",
            "third-party": f"{tp_share:.2%}",
        },
        "the same ratios from the fastest run of each variant (CPU)": {
            "warm hook / hook off, module": round(ratio(warm, off, "module_cpu_min"), 3),
            "warm hook / plain undecorated, module": round(ratio(warm, plain, "module_cpu_min"), 2),
            "warm hook / plain undecorated, process (both import array_vectorize)": round(
                ratio(warm, plain, "process_cpu_min"), 3
            ),
            "stdlib: hook on / off, module": round(ratio(on, no, "module_cpu_min"), 4),
            "third-party: hook on / off, module": round(ratio(tp_on, tp_off, "module_cpu_min"), 4),
        },
        "bars": [
            {
                "what": "warm import of 50 marked functions, hook on vs hook off (module, CPU)",
                "figure": f"{warm_vs_off:.3f}x",
                "bar": "<= 1.10x",
                "met": warm_vs_off <= 1.10,
            },
            {
                "what": "warm import, hook on vs plain undecorated (process, CPU, both import array_vectorize)",
                "figure": f"{warm_vs_plain_process:.3f}x",
                "bar": "<= 1.3x",
                "met": warm_vs_plain_process <= 1.3,
            },
            {
                "what": "warm import, hook on vs plain undecorated (process, CPU, NumPy loaded in both)",
                "figure": f"{warm_vs_plain_numpy:.3f}x",
                "bar": "<= 1.3x",
                "met": warm_vs_plain_numpy <= 1.3,
            },
            {
                "what": "warm import, hook on vs plain undecorated (process, CPU, no array_vectorize in the plain one)",
                "figure": f"{ratio(warm, bare, 'process_cpu'):.3f}x",
                "bar": "<= 1.3x",
                "met": ratio(warm, bare, "process_cpu") <= 1.3,
            },
            {
                # DESIGN.md section 6: the `import` statement, timed in-process, per marked function.
                "what": "warm import of 50 marked functions vs plain undecorated (the import statement, CPU, per function)",
                "figure": f"+{per_fn['warm']:.1f} us ({warm_vs_plain_module:.2f}x)",
                "bar": "<= 25 us",
                "met": per_fn["warm"] <= 25,
            },
            {
                "what": f"hook overhead importing {len(STDLIB)} unmarked stdlib modules (CPU)",
                "figure": f"{stdlib_overhead:.4f}x",
                "bar": "<= 1.03x",
                "met": stdlib_overhead <= 1.03,
            },
            {
                "what": "hook overhead importing unmarked third-party packages, ~300 modules (CPU)",
                "figure": f"{third_party_overhead:.4f}x",
                "bar": "<= 1.03x",
                "met": third_party_overhead <= 1.03,
            },
        ],
    }


def main() -> None:
    res = run(quick="--quick" in sys.argv[1:])
    for row in res.pop("rows"):
        print("  ".join(f"{k}={v}" for k, v in row.items()))
    bars = res.pop("bars")
    print(json.dumps(res, indent=2))
    for b in bars:
        print(f"{'met    ' if b['met'] else 'NOT MET'}  {b['what']}: {b['figure']} (bar {b['bar']})")


if __name__ == "__main__":
    main()
