"""One program, checked: write it to a file, import it, vectorize it, run it on every backend and
compare with CPython element by element (``oracle.py``).

``check_program(...)`` returns a ``Result``: lane counts and ``Failure`` records. The minimizer
calls it again on candidate programs and smaller inputs (``failure_key`` says whether a candidate
fails the same way).
"""

from __future__ import annotations

import ast
import itertools
import linecache
import os
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import oracle
from .inputs import Column, KIND_DTYPES, lane_args, lane_count, select_lanes, to_numpy
from .wellformed import patterns, returns_bool

_counter = itertools.count()

#: Tolerance for results of transcendental functions and float powers (documented divergence).
ULPS = 4


@dataclass
class Failure:
    kind: str  # mismatch | crash | rejected | accepted | diagnostic | invalid
    backend: str = ""
    lane: Optional[int] = None
    args: Optional[List[Any]] = None
    expected: Any = None
    got: Any = None
    dtype: str = ""
    detail: str = ""
    exc_type: str = ""
    known: str = ""  # the known-bug class this failure belongs to (KNOWN), if any

    def key(self) -> Tuple[str, str, str, str]:
        return (self.kind, self.backend, self.exc_type, known_class(self))


@dataclass
class Result:
    lanes: int = 0  # elements compared (summed over backends)
    skipped: Dict[str, int] = field(default_factory=dict)
    failures: List[Failure] = field(default_factory=list)
    rejected_ok: bool = False  # a rejection program was rejected as it should be
    cpython_ok: int = 0  # elements where CPython returns a value (no D3 exception, no overflow)
    ieee_lanes: int = 0  # elements compared with the IEEE value where CPython raises (D3)


def backends(names: List[str]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name in names:
        if name == "numpy":
            out[name] = np
        elif name == "strict":
            import array_api_strict

            out[name] = array_api_strict
        else:
            raise ValueError(f"unknown backend {name!r} (numpy, strict)")
    return out


def write_program(directory: str, source: str, stem: str = "prog") -> str:
    path = os.path.join(directory, f"{stem}_{os.getpid()}_{next(_counter)}.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(source)
    linecache.checkcache(path)
    return path


def load(source: str, path: str, entry: str) -> Any:
    namespace: Dict[str, Any] = {"__name__": os.path.splitext(os.path.basename(path))[0], "__file__": path}
    exec(compile(source, path, "exec"), namespace)  # noqa: S102 - the fuzzer's own program
    return namespace[entry]


def _to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    try:
        return np.from_dlpack(value)
    except (TypeError, AttributeError, RuntimeError, BufferError):
        return np.asarray(value)


def _exc_text(exc: BaseException) -> str:
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return "".join(lines[-6:]).rstrip()


@dataclass
class Prepared:
    """A program vectorized, with its CPython oracle."""

    source: str
    entry: str
    vec: Any
    evaluator: "oracle.Evaluator"
    bool_only: bool


def prepare(
    source: str, directory: str, entry: str = "f", reject: Optional[Tuple[int, int, str]] = None
) -> Tuple[Result, Optional[Prepared]]:
    """Writes ``source`` to a file, imports it and vectorizes ``entry``. Failures at this stage
    (rejections, crashes, a rejection program accepted) are in the result; ``Prepared`` is
    ``None`` then."""
    from array_vectorize import VectorizationError, vectorize

    result = Result()
    path = write_program(directory, source)
    try:
        fn = load(source, path, entry)
    except Exception as exc:  # noqa: BLE001
        result.failures.append(Failure("invalid", detail=f"the program does not run: {_exc_text(exc)}"))
        return result, None
    try:
        vec = vectorize(fn)
    except VectorizationError as exc:
        if reject is None:
            result.failures.append(Failure("rejected", detail=str(exc), exc_type="VectorizationError"))
        else:
            problem = _diagnostic_problem(exc, path, reject)
            if problem:
                result.failures.append(Failure("diagnostic", detail=f"{problem}\n{exc}"))
            else:
                result.rejected_ok = True
        return result, None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - PanicException is a BaseException
        result.failures.append(Failure("crash", detail=f"at decoration: {_exc_text(exc)}", exc_type=type(exc).__name__))
        return result, None
    if reject is not None:
        result.failures.append(
            Failure("accepted", detail=f"`{reject[2]}` at line {reject[0]} was not rejected\n--- generated ---\n{vec.source}")
        )
        return result, None
    evaluator = oracle.Evaluator(source, path, entry)
    return result, Prepared(source, entry, vec, evaluator, returns_bool(ast.parse(source), entry))


def check_program(
    source: str,
    columns: List[Column],
    names: Dict[str, Any],
    directory: str,
    entry: str = "f",
    reject: Optional[Tuple[int, int, str]] = None,
) -> Result:
    """Vectorizes ``entry`` of ``source`` and compares it with CPython on ``columns``."""
    result, prepared = prepare(source, directory, entry, reject)
    if prepared is None:
        return result
    return compare(prepared, columns, names, result)


def compare(
    prepared: Prepared, columns: List[Column], names: Dict[str, Any], result: Optional[Result] = None, ieee: bool = True
) -> Result:
    """Runs the vectorized function on ``columns`` on every backend of ``names`` and compares
    each element with CPython (module docstring of ``oracle.py``)."""
    result = result or Result()
    vec, evaluator, bool_only = prepared.vec, prepared.evaluator, prepared.bool_only
    n = lane_count(columns)
    expected = [evaluator.run(lane_args(columns, lane)) for lane in range(n)]
    result.cpython_ok = sum(1 for e in expected if isinstance(e, oracle.Ok))
    if ieee:
        # Where CPython raises (D3), the vectorized value is the IEEE one: CPython again, with
        # IEEE values for the operations that raised (oracle.py, docs/semantics.md items 1-7).
        for lane, e in enumerate(expected):
            if isinstance(e, oracle.Skip) and e.reason == "d3":
                alt = evaluator.run(lane_args(columns, lane), ieee=True)
                if isinstance(alt, (oracle.Ok, oracle.Skip)):
                    expected[lane] = alt
    for e in expected:
        if isinstance(e, oracle.Invalid):
            result.failures.append(Failure("invalid", detail=f"CPython raised {type(e.error).__name__}: {e.error}"))
            return result
    for bname, xp in names.items():
        args = _backend_args(columns, bname, xp)
        try:
            out = _call_quietly(vec, args)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, OverflowError) and "vectorized integers are 64-bit" in str(exc):
                # docs/semantics.md item 17: a Python int beyond 64 bits meeting an array raises,
                # even on a path CPython does not take.
                result.skipped["int-beyond-64-bits"] = result.skipped.get("int-beyond-64-bits", 0) + 1
                continue
            result.failures.append(
                Failure("crash", bname, detail=f"at call: {_exc_text(exc)}", exc_type=type(exc).__name__, known=_known_crash(exc))
            )
            continue
        problem = _shape_problem(out, xp, bname, n)
        if problem:
            sub = "odd-dtype" if problem.startswith("the result dtype") else "shape"
            result.failures.append(Failure("mismatch", bname, detail=problem, exc_type=sub))
            continue
        got = _to_numpy(out)
        kind = got.dtype.kind
        dtype = str(got.dtype)
        values = got.tolist()
        if bool_only and kind != "b" and any(isinstance(e, oracle.Ok) for e in expected):
            result.failures.append(
                Failure("mismatch", bname, dtype=dtype, detail=f"every return is a bool, but the result dtype is {dtype}", exc_type="dtype")
            )
        for lane in range(n):
            e = expected[lane]
            if isinstance(e, oracle.Skip):
                result.skipped[e.reason] = result.skipped.get(e.reason, 0) + 1
                continue
            result.lanes += 1
            if e.ieee:
                result.ieee_lanes += 1
            if oracle.agree(values[lane], kind, e.value):
                continue
            verdict = _second_look(evaluator, vec, columns, lane, xp, bname, values[lane], kind, e)
            if verdict:
                result.skipped[verdict] = result.skipped.get(verdict, 0) + 1
                continue
            result.failures.append(
                Failure(
                    "mismatch", bname, lane, lane_args(columns, lane), e.value, values[lane], dtype,
                    exc_type="ieee" if e.ieee else "value",
                )
            )
    if any(f.exc_type == "value" for f in result.failures):
        classify_mismatches(result.failures, patterns(ast.parse(prepared.source), prepared.entry))
    return result


def _backend_args(columns, bname, xp):
    """``columns`` as arrays of the backend ``bname`` (namespace ``xp``)."""
    args = [to_numpy(c, np) for c in columns]
    if bname != "numpy":
        args = [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return args


def _call_quietly(vec, args):
    """``vec(*args)`` with floating-point warnings silenced (D3 gives IEEE values)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return vec(*args)


def _second_look(evaluator, vec, columns, lane, xp, bname, got, kind, e) -> Optional[str]:
    """Documented reasons for a difference, or None (a mismatch)."""
    args = lane_args(columns, lane)
    if evaluator.uses_shim:
        # Transcendental functions and float powers are NumPy's (last-bit differences from the
        # C library, documented): the same program on NumPy's implementations, or the result
        # within a few ulps (NumPy's scalar and array paths of ``**`` differ too).
        # Powers with an array exponent run NumPy's ``pow`` loop, not its scalar-exponent fast
        # paths (``shim="loop"``, oracle.py).
        for shim in evaluator.shims:
            alt = evaluator.run(args, shim=shim, ieee=e.ieee)
            if isinstance(alt, oracle.Skip):
                return "ulp-" + alt.reason
            if isinstance(alt, oracle.Ok) and oracle.agree(got, kind, alt.value):
                return "ulp"
            for ref in (e, alt):
                if isinstance(ref, oracle.Ok) and oracle.close(got, kind, ref.value, ULPS):
                    return "ulp"
    # Mixed-kind merges hold ints as float64 (select.py): beyond 2**53 rounded, and later
    # operations on them are float operations (-0 is -0.0, p + 1 rounds).
    raised = False
    kind_shadows = oracle.KIND_MODES
    for r53 in (("merge", "all") + kind_shadows if e.big53 else kind_shadows):
        for shim in (False,) + evaluator.shims:
            alt = evaluator.run(args, shim=shim, r53=r53, ieee=e.ieee)
            value = alt
            if isinstance(alt, oracle.Skip) and alt.reason == "d3" and not e.ieee:
                # With ints held as floats, CPython raises here: the vectorized value is then
                # the IEEE one (items 1-7) of that computation.
                value = evaluator.run(args, shim=shim, r53=r53, ieee=True)
            if isinstance(value, oracle.Ok) and oracle.close(got, kind, value.value, ULPS if shim else 0):
                return "int-to-float"
            if (
                isinstance(value, oracle.Ok) and kind in ("b", "i") and type(value.value) is float
                and value.value == (bool(got) if kind == "b" else int(got))
            ):
                # The model converts every return of the function to float, its final bool
                # comparison or int result too; the vectorized value is the same (compared
                # exactly: an int beyond 2**53 is not equal to a float it rounds to; seed 14004,
                # program 438).
                return "int-to-float"
            if isinstance(value, oracle.Ok) and value.wide:
                # An int in [2**63, 2**64) on int64 lanes wraps (items 6, 13), e.g. abs() of an
                # int held as float64 that rounded to -2**63.
                wrapped = evaluator.run(args, shim=shim, r53=r53, ieee=True, wrap64=True)
                if isinstance(wrapped, oracle.Ok) and oracle.close(got, kind, wrapped.value, ULPS if shim else 0):
                    return "wrap-int64"
            if (
                isinstance(alt, oracle.Ok) and type(alt.value) is int and not oracle.INT64_MIN <= alt.value < oracle.INT64_END
                and kind == "i" and got in (oracle.INT64_MIN, oracle.INT64_MAX)
            ):
                # An int held as float64, beyond int64, converted back by floor/int/round:
                # saturated (docs/semantics.md item 7).
                return "int-to-float"
            raised = raised or (isinstance(alt, oracle.Skip) and r53 in ("mergek", "mergekf", "mergephi", "mergeif", "mergeeager"))
    if raised:
        return "int-to-float-d3"  # with ints held as floats, CPython would raise (D3) here
    if e.wide or evaluator.int_pow or any(type(a) is int and a >= oracle.INT64_END for a in args):
        # Integers outside int64 on the way (or in the arguments): whether they wrap depends on
        # the dtype the uint64 lattice picks for the whole array (runtime/intops.py), and eager
        # branches (D1) compute values CPython never sees. One element alone decides for itself;
        # if it still differs and an operation gave an int outside int64, that operation wrapped.
        sargs = _backend_args(select_lanes(columns, [lane]), bname, xp)
        try:
            one = _to_numpy(_call_quietly(vec, sargs))
            if oracle.agree(one.tolist()[0] if one.ndim else one.item(), one.dtype.kind, e.value):
                # Or `int ** int` array: float64 on every lane when some exponent is negative
                # (docs/semantics.md item 12, eager backends).
                return "wrap-lattice" if not evaluator.int_pow or e.wide else "int-pow-dtype"
        except Exception:  # noqa: BLE001
            pass
        if e.wide:
            return "wrap-int64"
    if evaluator.uses_copysign:
        # Which NaN an operation on two NaNs gives, so the sign copysign reads, is the array
        # library's (docs/semantics.md item 18).
        for shim in ((False, True) if evaluator.uses_shim else (False,)):
            alt = evaluator.run(args, shim=shim, ieee=e.ieee, nanflip=True)
            if isinstance(alt, oracle.Ok) and oracle.agree(got, kind, alt.value):
                return "nan-sign"
    return None


#: Known bug classes a run can set aside (``--known``), so that it goes on finding others.
KNOWN = {
    "scalar-raise": "the generated code evaluates Python-scalar arithmetic (constants, loop indices) "
    "eagerly, also on paths CPython does not take, and raises ZeroDivisionError/OverflowError/ValueError "
    "at call time (D3 says IEEE values)",
    "bigint-raise": "an integer beyond int64 in a Python scalar or literal (e.g. 2**63 * 3 on a dead path, "
    "or int64 array * 2**63) raises OverflowError at call time",
    "strict-promotion": "on array-api-strict, a plain operator or xp.where mixes an array with a Python "
    "scalar or array of another kind (bool/int/float), which the strict backend rejects with TypeError",
    "bool-arith": "an arithmetic operator or comparison applied to a bool array as if it were a number "
    "(kind inference: a phi or merge that starts as a bool), rejected by array-api-strict (and `-` by NumPy)",
    "merge-kind": "a value of a narrower kind (bool/int) reaches a float-only operation (math function) "
    "through a merge, phi or min/max whose inferred kind is float, without conversion: array-api-strict "
    "rejects it, NumPy computes in float16 for bools",
    "unbound-done": "the generated code reads a `done_*` mask before assigning it (UnboundLocalError): "
    "ifs on the loop index, one with a return, after an array `if` in a loop",
    "scalar-as-array": "a Python scalar (loop-carried variable or merge that is constant) stands where an array is "
    "expected: the result is a scalar or 0-d array, or array-api-strict rejects it",
    "scalar-if-in-array-if": "an `if` on a Python scalar (loop index, unfolded constant) inside a branch of an "
    "`if` on an array condition, with returns: the path condition or the returned value is lost",
    "loop-return-in-if": "a `return` inside a loop inside a branch of an `if` on an array condition: the loop's "
    "done mask ignores the enclosing condition",
}


def known_class(f: "Failure") -> str:
    if f.kind == "mismatch" and f.exc_type == "shape":
        return "scalar-as-array"
    if f.kind == "mismatch" and f.exc_type == "odd-dtype":
        return "merge-kind"
    return f.known


def classify_mismatches(failures: List["Failure"], shapes: set) -> None:
    """Value mismatches of programs that contain a control-flow shape of a known bug."""
    for f in failures:
        if f.kind == "mismatch" and f.exc_type == "value" and not f.known:
            for name in ("loop-return-in-if", "scalar-if-in-array-if"):
                if name in shapes:
                    f.known = name
                    break


def _known_crash(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, OverflowError) and (
        "does not fit a 64-bit integer array" in text or "too large to convert" in text or "within the bounds" in text
    ):
        return "bigint-raise"
    if isinstance(exc, TypeError):
        if "Only numeric dtypes are allowed" in text or "Only real numeric dtypes are allowed" in text or (
            "boolean negative" in text or "cannot be promoted with bool arrays" in text
        ):
            return "bool-arith"
        if "can only be promoted" in text or "cannot be type promoted" in text:
            return "strict-promotion"
        if "Only Array objects are allowed" in text or "must be an Array" in text or "Two scalars not allowed" in text:
            return "scalar-as-array"
        if "unsupported operand of type complex" in text or "'complex'" in text:
            return "scalar-raise"
        if "floating-point dtypes are allowed" in text:
            return "merge-kind"
    if isinstance(exc, AttributeError) and ("has no attribute 'astype'" in text or "has no attribute 'device'" in text):
        return "scalar-as-array"
    if isinstance(exc, UnboundLocalError) and "'done" in text:
        return "unbound-done"
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is not None and last.tb_frame.f_code.co_filename.startswith("<array-vectorize") and isinstance(
        exc, (ArithmeticError, ValueError)
    ):
        return "scalar-raise"
    return ""


def _shape_problem(out: Any, xp: Any, bname: str, n: int) -> Optional[str]:
    shape = getattr(out, "shape", None)
    if shape is None:
        return f"the result is a {type(out).__name__}, not an array"
    if tuple(shape) != (n,):
        return f"the result has shape {tuple(shape)}, expected ({n},)"
    if bname == "strict":
        if type(out) is not type(xp.asarray(0.0)):
            return f"the result is a {type(out).__module__}.{type(out).__name__}, not an array_api_strict array"
    elif not isinstance(out, np.ndarray):
        return f"the result is a {type(out).__module__}.{type(out).__name__}, not a numpy array"
    dtype = _to_numpy(out).dtype
    if str(dtype) not in KIND_DTYPES.values():
        return f"the result dtype is {dtype}"
    return None


def _diagnostic_problem(exc: BaseException, path: str, reject: Tuple[int, int, str]) -> Optional[str]:
    first, last, construct = reject
    diags = getattr(exc, "diagnostics", None)
    if not diags:
        return "VectorizationError without diagnostics"
    for d in diags:
        if d.get("path") == path and first <= int(d.get("line") or 0) <= last and d.get("col") is not None:
            return None
    where = ", ".join(f"{d.get('path')}:{d.get('line')}:{d.get('col')}" for d in diags)
    return f"no diagnostic for `{construct}` at lines {first}-{last} (got {where})"
