"""Every benchmark the project sets a bar for (docs/benchmarks.md) in one run, figures side by side (``make bench``).

    python benchmarks/run.py [--quick] [--json PATH] [--only NAME[,NAME...]] [--title TEXT]

1. Runtime at 1e6 float64 elements, per function of ``functions.py``: the hand-written Array API
   expression vs the ``@vectorize``'d function vs ``np.vectorize`` of the scalar original.
2. Call overhead on 10-element inputs: generated minus hand-written, per function.
3. Decoration latency (``bench_compile.py``).
4. The real-code set (``bench_realcode.py``, issue 30): functions in the styles of real scientific
   code and an integer set, each against numba, jax.jit, the hand-written NumPy and np.vectorize.
5. The import hook (``bench_hook.py``) and the build backend (``bench_build.py``), when present:
   each exposes ``run() -> dict`` (``run(quick=...)`` if it accepts ``quick``). A returned dict is
   printed as it comes: a list of dicts under ``"rows"`` as a table, other keys as ``key: value``;
   an optional ``"bars"`` list of ``{"what", "figure", "bar", "met"}`` joins the summary.

Every full run (not ``--quick``, not ``--only``; or any run given ``--results DIR``) is recorded as
one JSON file under ``benchmarks/results/`` (``history.py``: date, commit, machine, the report as
printed and every figure): docs/benchmarks.md quotes the current run, the files keep all of them.

Benchmarks report; they never fail on slowness (the exit status is 0 whatever the figures).
Calls on 1e6 elements are timed by wall clock (``BIG_CLOCK``): the generated code runs its blocks
on worker threads (runtime/threads.py), whose CPU time the calling thread's leaves out; the same
comparison is also made with ``ARRAY_VECTORIZE_THREADS=1`` (one thread, as the hand-written code
runs). Other timings read this thread's CPU time by default (``--clock wall`` for perf_counter):
the machine is shared, and CPU time leaves out the time spent waiting for a core. Decoration
latency reads the process's CPU time instead: the compile runs on a thread of its own. They are medians over repeats,
after warm-up, with the garbage collector off while timing; the
hand-written and generated versions are timed alternately so that load on the machine hits both,
and the ratio (and the 10-element difference) is the median over those back-to-back pairs.
``--quick`` runs a reduced version (fewer repeats, np.vectorize on 20,000 elements scaled up) in
about 15 seconds; the full run takes a few minutes.

OpenBLAS tuning variables (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE) can slow NumPy down on this
machine; this script re-executes itself without them (only its own process and children).
"""

from __future__ import annotations

import os
import sys

# jax.jit is compared with numba.vectorize, which runs on one thread: XLA's CPU backend is kept to
# one thread too (set before anything imports jax; a value given by the caller is kept).
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

_UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if any(v in os.environ for v in _UNSET):
    _env = {k: v for k, v in os.environ.items() if k not in _UNSET}
    os.execve(sys.executable, [sys.executable, *sys.argv], _env)

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import array_vectorize  # noqa: E402
from array_vectorize import _core  # noqa: E402
from array_vectorize.runtime import threads  # noqa: E402

import functions  # noqa: E402
import history  # noqa: E402
from peers import peak_bytes  # noqa: E402
from report import N_BIG, N_SMALL, md_table, print_bars, print_compile, print_generic, print_runtime  # noqa: E402



class Config:
    def __init__(self, quick: bool) -> None:
        self.quick = quick
        # 1e6 runtime: repeats of one call each, alternating hand / generated.
        self.big_repeats = 7 if quick else 31
        # np.vectorize: elements timed (scaled linearly to N_BIG when fewer) and repeats. Linear
        # scaling flatters np.vectorize (one call on 1e6 elements costs ~1.5x ten calls on 1e5:
        # a million Python floats in an object array), so the full run times it at N_BIG.
        self.npvec_n = 20_000 if quick else N_BIG
        self.npvec_repeats = 1 if quick else 3
        # 10-element overhead: calls per sample and samples.
        self.small_number = 1_000 if quick else 5_000
        self.small_repeats = 7 if quick else 25
        # jax.jit vs numba.vectorize at 1e6: repeats of one call each.
        self.peer_repeats = 5 if quick else 15
        self.peers = True
        # Threads a large generated call runs its blocks on (runtime/threads.py).
        self.threads = threads.threads()


# ----------------------------------------------------------------------------- timing helpers


#: The clock every timing here reads (--clock): "cpu" is this thread's CPU time, which leaves out
#: the time the process waits for a core while other work runs on the machine; "wall" is
#: time.perf_counter. For single-threaded NumPy work on an idle machine the two agree.
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
CLOCK = CLOCKS["cpu"]
#: The clock of calls on 1e6 elements: wall time, since a large generated call runs its blocks on
#: several threads (the calling thread's CPU time would leave the others' work out).
BIG_CLOCK = time.perf_counter


class one_thread:
    """``with one_thread():`` large generated calls run in the calling thread alone."""

    def __enter__(self):
        self.saved = os.environ.get(threads.THREADS_ENV)
        os.environ[threads.THREADS_ENV] = "1"

    def __exit__(self, *exc):
        if self.saved is None:
            del os.environ[threads.THREADS_ENV]
        else:
            os.environ[threads.THREADS_ENV] = self.saved


def _once(fn, args, clock=None) -> float:
    clock = clock or CLOCK
    t0 = clock()
    fn(*args)
    return clock() - t0


def time_pair(a, b, args, repeats: int, warmup: int = 2, clock=None) -> tuple[list[float], list[float]]:
    """Seconds per call of `a(*args)` and `b(*args)`, `repeats` samples each, timed alternately
    (order swapped each repeat) so that sample i of both saw the same load."""
    for _ in range(warmup):
        a(*args)
        b(*args)
    ta, tb = [], []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for i in range(repeats):
            if i % 2:
                tb.append(_once(b, args, clock))
                ta.append(_once(a, args, clock))
            else:
                ta.append(_once(a, args, clock))
                tb.append(_once(b, args, clock))
    finally:
        if gc_was_enabled:
            gc.enable()
    return ta, tb


def time_pair_small(a, b, args, number: int, repeats: int) -> tuple[list[float], list[float]]:
    """Seconds per call, `repeats` samples of `number` calls each, alternating as in time_pair."""
    ta_timer = timeit.Timer("f(*args)", timer=CLOCK, globals={"f": a, "args": args})
    tb_timer = timeit.Timer("f(*args)", timer=CLOCK, globals={"f": b, "args": args})
    ta_timer.timeit(number)
    tb_timer.timeit(number)
    ta, tb = [], []
    for i in range(repeats):
        if i % 2:
            tb.append(tb_timer.timeit(number) / number)
            ta.append(ta_timer.timeit(number) / number)
        else:
            ta.append(ta_timer.timeit(number) / number)
            tb.append(tb_timer.timeit(number) / number)
    return ta, tb


def time_np_vectorize(scalar, args, repeats: int) -> float:
    vec = np.vectorize(scalar, otypes=[np.float64])
    vec(*[a[:10] if isinstance(a, np.ndarray) else a for a in args])
    samples = []
    for _ in range(repeats):
        samples.append(_once(vec, args, BIG_CLOCK))
    return statistics.median(samples)


# ----------------------------------------------------------------------------- peers and memory


def _jax():
    """jax with 64-bit floats, or None when it is not installed."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def numba_vectorized(scalar):
    """``numba.vectorize`` of the scalar original (float64 signature), the Python functions it
    calls compiled with ``numba.njit``; None when numba is not installed."""
    try:
        import numba
    except ImportError:
        return None

    def with_jitted_callees(fn, jitted=None):
        # A function calling itself (D19) calls its own jitted copy: numba compiles the recursion.
        jitted = {} if jitted is None else jitted
        glob = dict(fn.__globals__)
        copy = types.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, fn.__closure__)
        jitted[fn] = numba.njit(copy)
        for name in fn.__code__.co_names:
            callee = glob.get(name)
            if isinstance(callee, types.FunctionType) and callee.__module__ == fn.__module__:
                glob[name] = jitted[callee] if callee in jitted else numba.njit(with_jitted_callees(callee, jitted))
        return copy

    n = scalar.__code__.co_argcount
    return numba.vectorize([f"float64({', '.join(['float64'] * n)})"])(with_jitted_callees(scalar))


def with_xp(fn, xp):
    """`fn` (a hand-written version, unedited) with its module's global ``xp`` bound to `xp`: the
    module's plain functions are re-created over one copy of its globals, so the helpers it calls
    see the new ``xp`` too."""
    glob = dict(fn.__globals__, xp=xp)

    def rebound(f):
        return types.FunctionType(f.__code__, glob, f.__name__, f.__defaults__, f.__closure__)

    for name, value in fn.__globals__.items():
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            glob[name] = rebound(value)
    return rebound(fn)


def _error_text(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"


#: The peers' clock: wall time. XLA computes on a worker thread whose CPU time this VM books to
#: the process late, in scheduler ticks: ~0.37 ms calls of jax.jit read 0.05-0.83 ms by
#: time.process_time and 0.34-0.48 ms by perf_counter, so the ratios of process CPU time to
#: numba moved by +-50% between runs. Best read on an idle machine (`make bench` says the load).
PEER_CLOCK = time.perf_counter


def peer_figures(bench, gen, big, cfg: Config) -> dict:
    """The generated code under jax.jit against numba.vectorize of the scalar original, each
    where installed: steady state (compiled by warm-up calls), wall time (``PEER_CLOCK``),
    median of back-to-back ratios. The hand-written version under jax.jit
    (``xp`` = jax.numpy) is timed against both: what XLA costs without the code generator."""
    out: dict = {}
    jax = _jax()
    nb = None
    try:
        nb = numba_vectorized(bench.scalar)
    except Exception as exc:  # noqa: BLE001 - a peer that cannot take the function is a finding
        out["numba_error"] = _error_text(exc)
    jitted = jitted_hand = None
    if jax is not None:
        import jax.numpy as jnp

        jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in big)
        jit = jax.jit(gen)

        def jitted(*_):
            return jit(*jargs).block_until_ready()

        jit_hand = jax.jit(with_xp(bench.hand, jnp))

        def jitted_hand(*_):
            return jit_hand(*jargs).block_until_ready()

    if nb is not None and "numba_error" not in out:
        try:
            nb(*big)
        except Exception as exc:  # noqa: BLE001
            out["numba_error"] = _error_text(exc)
            nb = None
    if jitted is not None:
        try:
            jitted()
        except Exception as exc:  # noqa: BLE001 - a while loop cannot be traced (D12): a finding
            out["jax_error"] = _error_text(exc)
            jitted = None
    if jitted_hand is not None:
        try:
            jitted_hand()
        except Exception as exc:  # noqa: BLE001 - a data-dependent loop or an xp function jax lacks
            out["jax_hand_error"] = _error_text(exc)
            jitted_hand = None
    if nb is not None:
        # The generated code on NumPy (what runs without jax) against numba, on every function
        # numba compiles: the figure for those jax.jit cannot trace.
        tg, tn = time_pair(gen, nb, big, cfg.peer_repeats, clock=PEER_CLOCK)
        out["gen_vs_numba"] = statistics.median(g / n for g, n in zip(tg, tn))
    if jitted is not None and nb is not None:
        tj, tn = time_pair(jitted, nb, big, cfg.peer_repeats, clock=PEER_CLOCK)
        out["jax_ms"] = statistics.median(tj) * 1e3
        out["numba_ms"] = statistics.median(tn) * 1e3
        out["jax_vs_numba"] = statistics.median(j / n for j, n in zip(tj, tn))
    elif jitted is not None:
        tj, _ = time_pair(jitted, jitted, big, cfg.peer_repeats, clock=PEER_CLOCK)
        out["jax_ms"] = statistics.median(tj) * 1e3
    elif nb is not None:
        tn, _ = time_pair(nb, nb, big, cfg.peer_repeats, clock=PEER_CLOCK)
        out["numba_ms"] = statistics.median(tn) * 1e3
    if jitted_hand is not None:
        th: list[float] = []
        if jitted is not None:
            tj, t = time_pair(jitted, jitted_hand, big, cfg.peer_repeats, clock=PEER_CLOCK)
            th += t
            out["jax_gen_vs_hand"] = statistics.median(j / h for j, h in zip(tj, t))
        if nb is not None:
            t, tn = time_pair(jitted_hand, nb, big, cfg.peer_repeats, clock=PEER_CLOCK)
            th += t
            out["jax_hand_vs_numba"] = statistics.median(h / n for h, n in zip(t, tn))
        if not th:
            th, _ = time_pair(jitted_hand, jitted_hand, big, cfg.peer_repeats, clock=PEER_CLOCK)
        out["jax_hand_ms"] = statistics.median(th) * 1e3
    return out


# ----------------------------------------------------------------------------- runtime figures


def runtime_rows(cfg: Config, only: set[str] | None) -> list[dict]:
    rows = []
    for bench in functions.BENCHMARKS:
        if only and bench.name not in only:
            continue
        row = {"function": bench.name, "description": bench.description}
        rows.append(row)
        try:
            gen = bench.generated()
        except Exception as exc:  # a compiler problem is a finding, not a crash
            row["error"] = f"{type(exc).__name__}: {exc}"
            print(f"  {bench.name}: vectorize failed: {row['error']}", file=sys.stderr)
            continue
        rng = np.random.default_rng(20240601)
        big = bench.make_args(rng, N_BIG)
        hand_samples, gen_samples = time_pair(bench.hand, gen, big, cfg.big_repeats, clock=BIG_CLOCK)
        hand_s, gen_s = statistics.median(hand_samples), statistics.median(gen_samples)
        row["hand_ms"] = hand_s * 1e3
        row["gen_ms"] = gen_s * 1e3
        # Median of the ratios of samples taken back to back: robust to load that comes and goes.
        row["ratio"] = statistics.median(g / h for g, h in zip(gen_samples, hand_samples))
        # Fastest against fastest: what each costs with the least interference from other load.
        row["ratio_best"] = min(gen_samples) / min(hand_samples)
        if cfg.threads > 1:
            with one_thread():
                hand1, gen1 = time_pair(bench.hand, gen, big, cfg.big_repeats, clock=BIG_CLOCK)
            row["gen1_ms"] = statistics.median(gen1) * 1e3
            row["ratio1"] = statistics.median(g / h for g, h in zip(gen1, hand1))

        row["hand_peak_mb"] = peak_bytes(bench.hand, big) / 1e6
        row["gen_peak_mb"] = peak_bytes(gen, big) / 1e6
        if cfg.peers:
            row.update(peer_figures(bench, gen, big, cfg))

        small_args = bench.make_args(rng, cfg.npvec_n)
        npv_s = time_np_vectorize(bench.scalar, small_args, cfg.npvec_repeats) * (N_BIG / cfg.npvec_n)
        row["npvec_ms"] = npv_s * 1e3
        row["speedup"] = npv_s / gen_s
        row["hand_speedup"] = npv_s / hand_s
        if "gen1_ms" in row:
            row["speedup1"] = npv_s / (row["gen1_ms"] / 1e3)
        if "numba_ms" in row:
            # Compiled machine code calling the same libm: the most any exact rewrite can gain.
            row["numba_speedup"] = npv_s / (row["numba_ms"] / 1e3)

        tiny = bench.make_args(rng, N_SMALL)
        hand_t, gen_t = time_pair_small(bench.hand, gen, tiny, cfg.small_number, cfg.small_repeats)
        row["hand10_us"] = statistics.median(hand_t) * 1e6
        row["gen10_us"] = statistics.median(gen_t) * 1e6
        row["overhead_us"] = statistics.median(g - h for g, h in zip(gen_t, hand_t)) * 1e6
        row["overhead_best_us"] = (min(gen_t) - min(hand_t)) * 1e6
        print(
            f"  {bench.name:<16} hand {row['hand_ms']:7.2f} ms  gen {row['gen_ms']:7.2f} ms  "
            f"ratio {row['ratio']:.3f}  np.vectorize {row['npvec_ms']:8.0f} ms  "
            f"10-elt +{row['overhead_us']:.2f} us  peak MB {row['hand_peak_mb']:.0f}/{row['gen_peak_mb']:.0f}"
            + (f"  jax/numba {row['jax_vs_numba']:.2f}" if "jax_vs_numba" in row else "")
            + (f"  jax gen/hand {row['jax_gen_vs_hand']:.2f}" if "jax_gen_vs_hand" in row else ""),
            file=sys.stderr,
        )
    return rows


def runtime_bars(rows: list[dict]) -> list[dict]:
    ok = [r for r in rows if "error" not in r]
    failed = [r["function"] for r in rows if "error" in r]
    bars = []
    if ok:
        ratios = [r["ratio"] for r in ok]
        worst = max(ok, key=lambda r: r["ratio"])
        slowest_speedup = min(ok, key=lambda r: r["speedup"])
        # The same figures with the generated code on one thread, shown beside the bars' own.
        median1 = worst1 = slowest1 = ""
        if all("ratio1" in r for r in ok):
            median1 = f"; 1 thread {statistics.median(r['ratio1'] for r in ok):.3f}"
            w = max(ok, key=lambda r: r["ratio1"])
            worst1 = f"; 1 thread {w['ratio1']:.3f} ({w['function']})"
            sl = min(ok, key=lambda r: r["speedup1"])
            slowest1 = f"; 1 thread {sl['speedup1']:.1f}x ({sl['function']})"
        worst_overhead = max(ok, key=lambda r: r["overhead_us"])
        bars += [
            {
                "what": "generated / hand-written at 1e6, median over the set",
                "figure": f"{statistics.median(ratios):.3f}{median1}",
                "bar": "<= 0.85",
                "met": statistics.median(ratios) <= 0.85 and not failed,
            },
            {
                "what": "generated / hand-written at 1e6, worst",
                "figure": f"{worst['ratio']:.3f} ({worst['function']}){worst1}",
                "bar": "<= 1.3",
                "met": worst["ratio"] <= 1.3 and not failed,
            },
            {
                "what": "speed-up over np.vectorize, lowest",
                # One decimal: the bar is 10x, and 9.7x printed as "10x" would read as met.
                "figure": f"{slowest_speedup['speedup']:.1f}x ({slowest_speedup['function']}"
                + (f"; numba.vectorize {slowest_speedup['numba_speedup']:.0f}x" if "numba_speedup" in slowest_speedup else "")
                + f"){slowest1}",
                # DESIGN.md section 6: where libm's calls bound every version, numba.vectorize's
                # speed-up (compiled machine code calling the same libm) is the bar.
                "bar": ">= 10x, or numba.vectorize's where lower",
                "met": all(r["speedup"] >= min(10.0, r.get("numba_speedup", 10.0)) for r in ok) and not failed,
            },
            {
                "what": "10-element call overhead over hand-written, worst",
                "figure": f"{worst_overhead['overhead_us']:+.2f} us ({worst_overhead['function']})",
                "bar": "<= 2 us",
                "met": worst_overhead["overhead_us"] <= 2.0 and not failed,
            },
        ]
        mem = max(ok, key=lambda r: r["gen_peak_mb"] / max(r["hand_peak_mb"], 1e-9))
        mem_ratio = mem["gen_peak_mb"] / max(mem["hand_peak_mb"], 1e-9)
        bars.append(
            {
                "what": "peak memory of a 1e6 call, generated / hand-written, worst",
                "figure": f"{mem_ratio:.2f} ({mem['function']})",
                "bar": "<= 1.0",
                # tracemalloc's own bookkeeping moves a peak by a few kilobytes
                "met": all(r["gen_peak_mb"] <= r["hand_peak_mb"] + 0.01 for r in ok),
            }
        )
        peers = [r for r in ok if "jax_vs_numba" in r]
        untraced = [r["function"] for r in ok if "jax_error" in r]
        if peers:
            worst_peer = max(peers, key=lambda r: r["jax_vs_numba"])
            figure = f"{worst_peer['jax_vs_numba']:.2f} ({worst_peer['function']}"
            if "jax_hand_vs_numba" in worst_peer:
                figure += f"; jax.jit(hand-written) {worst_peer['jax_hand_vs_numba']:.2f} of numba"
            if "jax_gen_vs_hand" in worst_peer:
                figure += f", generated / hand-written under jax.jit {worst_peer['jax_gen_vs_hand']:.2f}"
            figure += f"; {len(peers)} functions"
            figure += f"; jax.jit cannot trace {', '.join(untraced)})" if untraced else ")"
            bars.append(
                {
                    "what": "generated under jax.jit / numba.vectorize at 1e6, worst",
                    "figure": figure,
                    "bar": "<= 1.5",
                    "met": worst_peer["jax_vs_numba"] <= 1.5,
                }
            )
    if failed:
        bars.append({"what": "functions the compiler failed on", "figure": ", ".join(failed), "bar": "none", "met": False})
    return bars


# ----------------------------------------------------------------------------- printing


def run_optional(module_name: str, quick: bool):
    """(result, error text); (None, None) when the module is not there."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None, None
        return None, f"import failed: {exc}"
    except Exception as exc:  # noqa: BLE001 - a broken suite must not stop the others
        return None, f"import failed: {type(exc).__name__}: {exc}"
    try:
        run = module.run
        try:
            accepts_quick = "quick" in inspect.signature(run).parameters
        except (TypeError, ValueError):
            accepts_quick = False
        return (run(quick=quick) if accepts_quick else run()), None
    except Exception:  # noqa: BLE001
        return None, traceback.format_exc()


def machine_header(cfg: Config) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"# array-vectorize benchmarks{' (--quick)' if cfg.quick else ''}\n\n"
        f"Python {platform.python_version()}, NumPy {np.__version__}, array-api-compat "
        f"{importlib.import_module('array_api_compat').__version__}, {cpu}, {os.cpu_count()} cores "
        f"(large generated calls on {cfg.threads} threads)\n"
        f"array_vectorize from {Path(array_vectorize.__file__).parent}, compiler build {_core.BUILD_ID}"
    )


class _Tee:
    """``sys.stdout`` that also keeps what is printed: a run's record holds the report as printed."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self.stream.write(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def record_run(title: str, started_at: time.struct_time, argv: list[str], report: str, results: dict, directory: Path) -> Path:
    """Writes the run's record (history.py) to `directory`: the code measured is the checkout's
    HEAD, plus its uncommitted changes when there are any (said so)."""
    changes = _git("status", "--porcelain", "--untracked-files=no")
    sections = history.parse_report(report)
    header = sections[0] if sections and str(sections[0]["title"]).startswith("array-vectorize benchmarks") else None
    machine = header["text"] if header else None
    record = {
        "title": title,
        "date": time.strftime("%Y-%m-%dT%H:%MZ", started_at),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "uncommitted_changes": bool(changes) if changes is not None else None,
        "machine": machine,
        "notes": f"benchmarks/run.py {' '.join(argv)}".strip(),
        "sections": sections,
        "figures": results,
    }
    return history.write_run(record, directory)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a reduced run (fewer repeats), well under a minute")
    parser.add_argument("--json", metavar="PATH", help="also write every figure as JSON")
    parser.add_argument("--only", metavar="NAMES", help="comma-separated benchmark functions (runtime section only)")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="cpu: thread CPU time (default; robust to other load on a shared machine); wall: perf_counter. Calls on 1e6 elements are always timed by wall clock (BIG_CLOCK)",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip jax.jit and numba.vectorize")
    parser.add_argument("--no-realcode", action="store_true", help="skip bench_realcode")
    parser.add_argument("--no-hook", action="store_true", help="skip bench_hook")
    parser.add_argument("--no-build", action="store_true", help="skip bench_build")
    parser.add_argument("--title", default="make bench", help="what the run is for, in its record")
    parser.add_argument(
        "--results",
        metavar="DIR",
        type=Path,
        help=f"record the run there (default: {history.RESULTS}, for full runs only)",
    )
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)
    started_at = time.gmtime()
    report = sys.stdout = _Tee(sys.stdout)
    cfg = Config(args.quick)
    cfg.peers = not args.no_peers
    global CLOCK
    CLOCK = CLOCKS[args.clock]
    import bench_compile

    # The decoration's compile runs on a thread of its own (src/host/stack.rs): CPU time is the
    # whole process's there (bench_compile.py's docstring).
    bench_compile.CLOCK = time.process_time if args.clock == "cpu" else CLOCK
    only = set(args.only.split(",")) if args.only else None
    started = time.perf_counter()

    print(machine_header(cfg))
    print(
        f"clock: {args.clock} "
        f"({'thread CPU time; decoration: process CPU time' if args.clock == 'cpu' else 'wall time, perf_counter'})"
    )
    try:
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
        print(f"load average at start: {load}")
    except OSError:
        pass
    results: dict = {"quick": cfg.quick}
    bars: list[dict] = []

    print("\nruntime and call overhead ...", file=sys.stderr)
    rows = runtime_rows(cfg, only)
    results["runtime"] = {"rows": rows}
    bars += runtime_bars(rows)
    print_runtime(rows, cfg)

    print("decoration latency ...", file=sys.stderr)
    res, err = run_optional("bench_compile", cfg.quick)
    results["compile"] = res if res is not None else {"error": err}
    if res is not None:
        print_compile(res)
        bars += res.get("bars", [])
    else:
        print(f"\n## Decoration latency\n\nFAILED:\n{err}")

    if not args.no_realcode:
        print("bench_realcode ...", file=sys.stderr)
        import bench_realcode

        try:
            res = bench_realcode.run(quick=cfg.quick)
        except Exception:  # noqa: BLE001 - a broken suite must not stop the others
            results["bench_realcode"] = {"error": traceback.format_exc()}
            print(f"\n## Real code\n\nFAILED:\n{results['bench_realcode']['error']}")
        else:
            results["bench_realcode"] = res
            bench_realcode.report(res, md_table)
            bars += res["bars"]

    for module_name, title, skip in (
        ("bench_hook", "Import hook", args.no_hook),
        ("bench_build", "Build backend", args.no_build),
    ):
        if skip:
            continue
        print(f"{module_name} ...", file=sys.stderr)
        res, err = run_optional(module_name, cfg.quick)
        if res is None and err is None:
            print(f"\n## {title}\n\n(benchmarks/{module_name}.py is not present)")
            continue
        results[module_name] = res if res is not None else {"error": err}
        if res is None:
            print(f"\n## {title}\n\nFAILED:\n{err}")
            continue
        print_generic(title, res)
        if isinstance(res, dict):
            bars += [b for b in res.get("bars", []) if isinstance(b, dict)]

    print_bars(bars)
    results["bars"] = bars
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
    sys.stdout = report.stream
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    directory = args.results or (history.RESULTS if not (args.quick or args.only) else None)
    if directory is not None:
        path = record_run(args.title, started_at, sys.argv[1:] if argv is None else argv, "".join(report.parts), results, directory)
        print(f"recorded in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
