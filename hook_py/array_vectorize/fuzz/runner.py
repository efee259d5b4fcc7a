"""The fuzzing loop and its report.

Program ``index`` of a run with ``--seed N`` is generated from ``random.Random(f"{N}:{index}")``,
so ``--seed N --only INDEX`` replays one program of a run exactly, whatever ``--count``/``--jobs``.
The last line of the output is always ``programs: P, lanes: L, mismatches: M, crashes: C``;
the exit status is 1 when M or C is not zero. Without ``--verbose`` (one line per program), a
``progress:`` line with the counts so far comes every ``--progress`` seconds. Ctrl-C stops the
run: the programs finished so far are summed up as usual, and the exit status is 130. ``crashes`` counts exceptions other than
``VectorizationError`` at decoration, exceptions at call time, rejections of programs of the
supported language, and rejection programs that were accepted or badly diagnosed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .check import KNOWN
from .generator import FEATURES, OPT_IN, Generator, Program
from .inputs import Column, describe_args, describe_value, lane_args, make_columns

#: One program in this many, by a hash of its text, is called with arguments of its mixed
#: body's kinds when it has one (``mixed_args``, issue 30).
MIXED_SHARE = 2

#: Failure kinds counted as mismatches; every other kind counts as a crash.
MISMATCH_KINDS = ("mismatch", "paths")

#: Bugs found by the fuzzer and still open, set aside by ``--skip-open-bugs`` (and by the CI
#: seeds of tests/unit/test_fuzz.py) so that a run finds the others: failure classes
#: (``check.KNOWN``) and generator features that reach bugs no failure signature recognises.
#: Each has a strict-xfail reproducer in tests/differential/test_fuzz_findings*.py; remove an
#: entry when its reproducers pass.
OPEN_BUG_CLASSES: frozenset = frozenset()
OPEN_BUG_FEATURES: frozenset = frozenset()


@dataclass
class Options:
    seed: int = 0
    count: int = 100
    backends: Sequence[str] = ("numpy", "strict")
    exclude: frozenset = frozenset()
    reject_rate: float = 0.03
    lanes: Sequence[int] = (48, 64, 96, 128, 160)
    minimize: bool = True
    minimize_budget: float = 30.0
    verbose: bool = False
    max_reports: int = 20
    timeout: float = 180.0  # seconds for one program (generation, checks, minimization) in a worker
    known: frozenset = frozenset()  # known bug classes (check.KNOWN) not counted as failures
    include: frozenset = frozenset()  # opt-in generator features (generator.OPT_IN)
    progress: float = 15.0  # seconds between progress lines (without verbose; 0: none)


@dataclass
class ProgramReport:
    index: int
    lanes: int = 0
    mismatches: int = 0
    crashes: int = 0
    skipped: Dict[str, int] = field(default_factory=dict)
    text: str = ""  # the failure report (empty when the program passed)
    summary: str = ""  # one line for --verbose
    features: frozenset = frozenset()
    rejection: bool = False


def make_program(seed: int, index: int, options: Options, directory: Optional[str] = None) -> tuple:
    """The program ``index`` of ``seed`` and its argument columns; ``directory``: where a
    program compiled to read its mixed body's kinds is written (the run's own, which the run
    removes even when it kills a worker; a temporary one of its own without)."""
    rng = random.Random(f"{seed}:{index}")
    reject = rng.random() < options.reject_rate
    program = Generator(rng, exclude=options.exclude, reject=reject, include=options.include).program()
    lanes = rng.choice(list(options.lanes))
    scalar_rate = 0.0 if "scalar_args" in options.exclude else 0.08
    columns = make_columns(program.kinds, lanes, rng, scalar_rate=scalar_rate, uniforms=program.uniforms)
    mixed = mixed_args(program, options, directory)
    if mixed is not None:
        # Issue 30: the columns again, of the kinds the mixed body takes, from a stream of
        # their own (every other program's draws are what they were); a uniform parameter the
        # IR reads as a number (D14: `cap=None`) is passed one of the objects of its kind
        # where the program has one (None, or a float for an int, keeps the exact body).
        program.kinds = [mixed.get(k, kind) if kind != "o" else kind for k, kind in enumerate(program.kinds)]
        program.features.add("mixed_args")
        uniforms = {
            k: [o for o in objects if k not in mixed or _of_kind(o, mixed[k])] or objects
            for k, objects in program.uniforms.items()
        }
        columns = make_columns(program.kinds, lanes, random.Random(f"{seed}:{index}:mixed"), scalar_rate, uniforms)
    return program, columns


def _of_kind(value: Any, kind: str) -> bool:
    """``value`` is what the mixed body's prologue takes for ``kind`` (``i``: a Python int,
    not a bool; ``f``: a Python float)."""
    return type(value) is (int if kind == "i" else float)


def mixed_args(program: Program, options: Options, directory: Optional[str] = None) -> Optional[Dict[int, str]]:
    """Issue 30: for half the programs, by a hash of their text (``MIXED_SHARE``), whose
    generated code has a mixed body (``_vec_mixed_args``), the kinds it takes per parameter
    its prologue receives (``explain.mixed_kinds``). None for the others, whose columns are of
    the kinds the generator drew (which a mixed body's rarely are: none of 200 calls before)."""
    import zlib

    from array_vectorize.api import compile_live

    from . import check, explain

    if program.reject is not None or "mixed_args" in options.exclude:
        return None
    if zlib.crc32(b"mixed:" + program.source.encode()) % MIXED_SHARE:
        return None
    if directory is None:
        with tempfile.TemporaryDirectory(prefix="av_mixed_") as own:
            return mixed_args(program, options, own)
    path = check.write_program(directory, program.source)
    try:
        compiled, _ = compile_live(check.load(program.source, path, program.entry), {"ir": True})
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - not compiled (a PanicException too): its checks say why
        return None
    finally:
        os.remove(path)
    return explain.mixed_kinds(compiled)


def run_one(seed: int, index: int, options: Options, directory: str) -> ProgramReport:
    import ast

    from . import check
    from .minimize import minimize
    from .wellformed import problems

    program, columns = make_program(seed, index, options, directory)
    report = ProgramReport(index, features=frozenset(program.features), rejection=program.reject is not None)
    # A program drawn for it (``forced_blocks``) runs on the ``blocked`` backend too (forced.py).
    extra = ["blocked"] if program.forced_blocks and "numpy" in options.backends and "blocked" not in options.backends else []
    names = check.backends(list(options.backends) + extra)
    if program.reject is None:
        problem = problems(ast.parse(program.source), program.entry)
        if problem:
            report.crashes += 1
            report.text = _header(seed, index, "invalid program (fuzzer bug)", problem) + _indent(program.source)
            return report
    def checked(source: str, cols: List[Column], backends: dict, reject: Any = None) -> check.Result:
        return check.check_program(
            source, cols, backends, directory, program.entry, reject,
            nan_on_raise=program.nan_on_raise, protect_domains=program.protect_domains,
        )

    result = checked(program.source, columns, names, program.reject)
    report.lanes = result.lanes
    report.skipped = dict(result.skipped)
    report.summary = (
        f"#{index}: {len(program.source.splitlines())} lines, params {''.join(program.kinds)}, "
        f"{result.lanes} lanes" + (f", rejection `{program.reject[2]}`" if program.reject else "")
        + (f", skipped {result.skipped}" if result.skipped else "")
    )
    known = [f for f in result.failures if check.known_class(f) in options.known]
    for f in known:
        tag = "known-" + check.known_class(f)
        report.skipped[tag] = report.skipped.get(tag, 0) + 1
    result.failures = [f for f in result.failures if f not in known]
    if not result.failures:
        return report
    first = result.failures[0]
    n_mis = sum(1 for f in result.failures if f.kind in MISMATCH_KINDS)
    if n_mis:
        report.mismatches = 1
    else:
        report.crashes = 1
    source, cols = program.source, columns
    if options.minimize and program.reject is None and first.kind in ("mismatch", "crash", "rejected", "paths"):
        key = first.key()
        cpython_ok = result.cpython_ok
        lanes = sorted({f.lane for f in result.failures if f.key() == key and f.lane is not None})[:3]

        def still_fails(src: str, cs: List[Column]) -> bool:
            backend = first.backend.split(" ")[0]
            r = checked(src, cs, {backend: names[backend]} if backend else names)
            # A crash reproducer keeps an element CPython computes without error: the vectorized
            # code raises where CPython returns a value.
            return any(f.key() == key for f in r.failures) and (first.kind != "crash" or r.cpython_ok > 0 or not cpython_ok)

        source, cols = minimize(program.source, columns, still_fails, lanes, program.entry, options.minimize_budget)
        result = checked(source, cols, names)
        result.failures = [f for f in result.failures if check.known_class(f) not in options.known]
        if not result.failures:  # should not happen: fall back to the original
            source, cols = program.source, columns
            result = checked(source, cols, names, program.reject)
            result.failures = [f for f in result.failures if check.known_class(f) not in options.known]
    report.text = _failure_text(seed, index, program, source, cols, result.failures)
    return report


def _header(seed: int, index: int, title: str, detail: str = "") -> str:
    head = f"=== {title}: program {index} of seed {seed} (replay: --seed {seed} --only {index})\n"
    return head + (detail.rstrip() + "\n" if detail else "")


def _indent(text: str, prefix: str = "    ") -> str:
    return "".join(prefix + line + "\n" for line in text.rstrip("\n").splitlines())


def _failure_text(seed: int, index: int, program: Program, source: str, columns: List[Column], failures: list) -> str:
    import ast

    fn = next(s for s in ast.parse(source).body if isinstance(s, ast.FunctionDef) and s.name == program.entry)
    params = [a.arg for a in fn.args.args]
    first = failures[0]
    title = {
        "mismatch": "MISMATCH",
        "crash": "CRASH",
        "rejected": "REJECTED a program of the supported language",
        "accepted": "ACCEPTED an unsupported construct",
        "diagnostic": "BAD DIAGNOSTIC",
        "invalid": "INVALID PROGRAM (fuzzer bug)",
        "paths": "PATHS DIFFER: the static compile (import hook, build backend) and the decorator",
    }[first.kind]
    out = [_header(seed, index, title)]
    out.append("program" + (" (minimized)" if source != program.source else "") + ":\n")
    out.append(_indent(source))
    shown = 0
    for f in failures:
        if shown >= 3:
            out.append(f"... and {len(failures) - shown} more\n")
            break
        shown += 1
        where = f" on {f.backend}" if f.backend else ""
        if f.kind == "mismatch" and f.lane is not None:
            out.append(f"element {f.lane}{where}: {describe_args(params, columns, f.lane)}\n")
            out.append(f"    CPython:    {describe_value(f.expected)} ({type(f.expected).__name__})\n")
            out.append(f"    vectorized: {describe_value(f.got)} (dtype {f.dtype})\n")
        else:
            out.append(f"{f.kind}{where}:\n{_indent(f.detail)}")
    if first.kind in ("crash", "rejected") and columns:
        out.append(f"inputs (element 0): {describe_args(params, columns, 0)}\n")
    return "".join(out)


def _worker(job: tuple) -> ProgramReport:
    seed, index, options, directory = job
    try:
        return run_one(seed, index, options, directory)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - a fuzzer bug must not end the run silently
        import traceback

        report = ProgramReport(index, crashes=1)
        report.text = _header(seed, index, "FUZZER ERROR") + _indent("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        return report


def _lost_report(seed: int, index: int, options: Options, why: str, exitcode: Optional[int] = None) -> ProgramReport:
    """The report of a program whose worker process died or hung (a crash of the system under
    test that took the process with it: abort, segfault, memory, endless loop). A death is
    minimized with each candidate in a fresh process."""
    report = ProgramReport(index, crashes=1)
    try:
        program, columns = make_program(seed, index, options)
    except Exception as exc:  # noqa: BLE001
        report.text = _header(seed, index, f"CRASH ({why})") + f"(the program could not be regenerated: {exc})\n"
        return report
    source = program.source
    if exitcode is not None and exitcode != 0 and options.minimize and program.reject is None:
        try:
            source, columns = _minimize_death(program.source, columns, exitcode, options)
        except Exception:  # noqa: BLE001 - keep the program as generated
            source = program.source
    title = "program (minimized):" if source != program.source else "program:"
    fn = source[source.index("def f("):].split(")", 1)[0][6:]
    params = [p.strip() for p in fn.split(",") if p.strip()]
    report.text = (
        _header(seed, index, f"CRASH ({why})") + title + "\n" + _indent(source)
        + f"inputs (element 0): {describe_args(params, columns, 0)}\n"
    )
    return report


_DEATH_CHECK = """
import pickle, sys
from array_vectorize.fuzz import check
source, columns, backends = pickle.load(open(sys.argv[1], "rb"))
directory = sys.argv[2]
check.check_program(source, columns, check.backends(backends), directory)
"""


def _minimize_death(source: str, columns: List[Column], exitcode: int, options: Options) -> tuple:
    """Shrinks a program that kills its process (``exitcode``), each candidate in a subprocess."""
    import pickle
    import subprocess

    from .minimize import minimize

    directory = tempfile.mkdtemp(prefix="array-vectorize-fuzz-death-")
    counter = [0]

    def dies(src: str, cols: List[Column]) -> bool:
        counter[0] += 1
        path = os.path.join(directory, f"case{counter[0]}.pickle")
        with open(path, "wb") as fh:
            pickle.dump((src, cols, list(options.backends)), fh)
        try:
            done = subprocess.run([sys.executable, "-c", _DEATH_CHECK, path, directory], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return False
        return done.returncode == exitcode

    try:
        if not dies(source, columns):
            return source, columns
        return minimize(source, columns, dies, [0], "f", min(options.minimize_budget * 3, 120.0))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _serve(conn: Any) -> None:
    """Worker process: runs the jobs the parent sends until ``None``. One pipe per worker and no
    lock shared between processes, so a worker killed at any moment cannot block the others.
    Ctrl-C is the parent's to handle (it kills the workers): a worker ignores it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(_worker(job))


def _run_isolated(jobs_list: list, jobs: int, options: Options, deliver) -> None:
    """Runs the jobs in ``jobs`` worker processes. A worker that dies (or runs one program longer
    than ``options.timeout`` seconds) is replaced and its program reported as a crash."""
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    todo = list(jobs_list)
    todo.reverse()
    seed = jobs_list[0][0]
    busy: Dict[Any, dict] = {}  # parent end of the pipe -> process, program, since when

    def spawn() -> None:
        if not todo:
            return
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(theirs,), daemon=True)
        proc.start()
        theirs.close()
        busy[mine] = {"proc": proc}
        assign(mine)

    def assign(conn: Any) -> None:
        state = busy[conn]
        if not todo:
            try:
                conn.send(None)
            except OSError:
                pass
            state["proc"].join(timeout=5)
            conn.close()
            del busy[conn]
            return
        job = todo.pop()
        state["index"], state["since"] = job[1], time.monotonic()
        try:
            conn.send(job)
        except OSError:
            lost(conn, "worker process died before its program started")

    def lost(conn: Any, why: str) -> None:
        state = busy.pop(conn)
        proc = state["proc"]
        if proc.is_alive():
            proc.kill()
        proc.join()
        conn.close()
        exitcode = None
        if why.startswith("worker process died"):
            exitcode = proc.exitcode
            why = f"{why}, exit code {exitcode}"
        deliver(_lost_report(seed, state["index"], options, why, exitcode))
        spawn()

    for _ in range(min(jobs, len(todo))):
        spawn()
    try:
        while busy:
            for conn in wait(list(busy), timeout=0.5):
                try:
                    report = conn.recv()
                except (EOFError, OSError, Exception):  # noqa: BLE001 - died, perhaps mid-message
                    lost(conn, "worker process died")
                    continue
                deliver(report)
                assign(conn)
            now = time.monotonic()
            for conn, state in list(busy.items()):
                if now - state["since"] > options.timeout:
                    lost(conn, f"no result after {options.timeout:.0f} s")
    finally:
        for state in busy.values():
            if state["proc"].is_alive():
                state["proc"].kill()


def run(
    options: Options, indices: Optional[Sequence[int]] = None, jobs: int = 1, out=None, isolate: bool = False
) -> Dict[str, Any]:
    """Runs the programs; prints failures (and, verbose, one line per program) in program order;
    returns totals. ``isolate`` (or ``jobs > 1``) runs them in worker processes, so that a crash
    or hang of the system under test is reported instead of ending the run."""
    out = out or sys.stdout
    indices = list(range(options.count)) if indices is None else list(indices)
    directory = tempfile.mkdtemp(prefix="array-vectorize-fuzz-")
    started = time.monotonic()
    totals: Dict[str, Any] = {
        "programs": 0, "lanes": 0, "mismatches": 0, "crashes": 0, "skipped": {}, "rejections": 0, "reports": [],
        "started": started, "planned": len(indices),
    }
    jobs_list = [(options.seed, i, options, directory) for i in indices]
    order = {index: n for n, index in enumerate(indices)}
    waiting: Dict[int, ProgramReport] = {}
    next_up = [0]

    def deliver(report: ProgramReport) -> None:
        waiting[order[report.index]] = report
        while next_up[0] in waiting:
            _account(waiting.pop(next_up[0]), totals, options, out)
            next_up[0] += 1

    totals["shown"] = started  # when the last progress line was printed
    totals["interrupted"] = False
    try:
        if (isolate or jobs > 1) and jobs_list:
            _run_isolated(jobs_list, max(jobs, 1), options, deliver)
        else:
            for job in jobs_list:
                deliver(_worker(job))
    except KeyboardInterrupt:
        totals["interrupted"] = True  # the programs accounted so far are the partial result
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    totals["seconds"] = time.monotonic() - started
    return totals


def _account(report: ProgramReport, totals: Dict[str, Any], options: Options, out) -> None:
    totals["programs"] += 1
    totals["lanes"] += report.lanes
    totals["mismatches"] += report.mismatches
    totals["crashes"] += report.crashes
    totals["rejections"] += int(report.rejection)
    for k, v in report.skipped.items():
        totals["skipped"][k] = totals["skipped"].get(k, 0) + v
    if options.verbose and report.summary:
        print(report.summary, file=out, flush=True)
    if report.text:
        totals["reports"].append(report.text)
        if len(totals["reports"]) <= options.max_reports:
            print(report.text, file=out, flush=True)
    now = time.monotonic()
    if not options.verbose and options.progress > 0 and now - totals["shown"] >= options.progress:
        totals["shown"] = now
        print(
            f"progress: {totals['programs']}/{totals['planned']} programs, "
            f"{totals['lanes']} lanes, {totals['mismatches']} mismatches, {totals['crashes']} crashes "
            f"({now - totals['started']:.0f} s)",
            file=out,
            flush=True,
        )


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m array_vectorize.fuzz",
        description="Generate random scalar programs, vectorize them and compare with CPython element by element.",
    )
    parser.add_argument("--seed", type=int, default=None, help="run seed (default: random, printed)")
    parser.add_argument("--count", type=int, default=100, help="number of programs")
    parser.add_argument("--only", type=int, action="append", default=None, metavar="INDEX", help="run only program INDEX of the seed (repeatable)")
    parser.add_argument("--backend", default="numpy,strict", help="comma-separated: numpy, strict, dask, blocked (NumPy with blocks, threads and packing forced)")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (default 0: one per CPU)")
    parser.add_argument("--exclude", default="", help=f"comma-separated generator features to leave out: {', '.join(FEATURES)}")
    parser.add_argument("--include", default="", help=f"comma-separated opt-in generator features: {', '.join(sorted(OPT_IN)) or 'none today'}")
    parser.add_argument("--reject-rate", type=float, default=0.03, help="share of programs with one unsupported construct")
    parser.add_argument("--no-minimize", action="store_true", help="report failing programs as generated")
    parser.add_argument("--minimize-budget", type=float, default=30.0, help="seconds spent shrinking one failure")
    parser.add_argument("--max-reports", type=int, default=20, help="failure reports printed in full")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds one program may take before it counts as a crash")
    parser.add_argument("--known", default="", help="comma-separated known bug classes not to count as failures: " + ", ".join(sorted(KNOWN)))
    parser.add_argument(
        "--skip-open-bugs", action="store_true",
        help="set aside the bugs found earlier and still open (OPEN_BUG_CLASSES, OPEN_BUG_FEATURES in runner.py)",
    )
    parser.add_argument("--verbose", action="store_true", help="one line per program")
    parser.add_argument(
        "--progress", type=float, default=15.0, metavar="SECONDS",
        help="without --verbose, a line with the counts so far every SECONDS (default 15; 0: none)",
    )
    args = parser.parse_args(argv)
    exclude = frozenset(x for x in args.exclude.split(",") if x)
    unknown = exclude - set(FEATURES)
    if unknown:
        parser.error(f"unknown features: {', '.join(sorted(unknown))}")
    include = frozenset(x for x in args.include.split(",") if x)
    if include - OPT_IN:
        parser.error(f"unknown opt-in features: {', '.join(sorted(include - OPT_IN))}")
    known = frozenset(x for x in args.known.split(",") if x)
    if args.skip_open_bugs:
        known |= OPEN_BUG_CLASSES
        exclude |= OPEN_BUG_FEATURES
    if known - set(KNOWN):
        parser.error(f"unknown known-bug classes: {', '.join(sorted(known - set(KNOWN)))}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    options = Options(
        seed=seed, count=args.count, backends=tuple(b for b in args.backend.split(",") if b), exclude=exclude,
        reject_rate=args.reject_rate, minimize=not args.no_minimize, minimize_budget=args.minimize_budget,
        verbose=args.verbose, max_reports=args.max_reports, known=known, timeout=args.timeout, include=include,
        progress=args.progress,
    )
    jobs = args.jobs if args.jobs > 0 else min(os.cpu_count() or 1, 8)
    print(
        f"fuzz: seed {seed}, {len(args.only) if args.only else args.count} programs, backends {','.join(options.backends)}, "
        f"jobs {jobs}" + (f"; set aside: {', '.join(sorted(known))}" if known else "")
        + (f"; not generated: {', '.join(sorted(exclude))}" if exclude else ""),
        flush=True,
    )
    totals = run(options, args.only, jobs, isolate=True)
    if totals["interrupted"]:
        print(f"interrupted (Ctrl-C) after {totals['programs']} of {len(args.only) if args.only else args.count} programs", flush=True)
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(totals["skipped"].items()))
    print(
        f"time {totals['seconds']:.1f} s; rejection programs {totals['rejections']}; "
        f"elements not compared or allowed to differ (documented divergences): {skipped or 'none'}"
    )
    print(f"programs: {totals['programs']}, lanes: {totals['lanes']}, mismatches: {totals['mismatches']}, crashes: {totals['crashes']}")
    if totals["interrupted"]:
        return 130
    return 1 if totals["mismatches"] or totals["crashes"] else 0
