"""One program, checked: write it to a file, import it, vectorize it, run it on every backend and
compare with CPython element by element (``oracle.py``).

``check_program(...)`` returns a ``Result``: lane counts and ``Failure`` records. The minimizer
calls it again on candidate programs and smaller inputs (``failure_key`` says whether a candidate
fails the same way).
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import itertools
import linecache
import os
import re
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import model, oracle
from .explain import ULPS, Explainer, Unmodelled, body_of, ir_models  # noqa: F401 - check.Explainer, check.ULPS
from .forced import forced
from .inputs import Column, KIND_DTYPES, lane_args, lane_count, resolve, to_numpy
from .wellformed import patterns, returns_bool

_counter = itertools.count()



@dataclass
class Failure:
    kind: str  # mismatch | crash | rejected | accepted | diagnostic | invalid | paths
    backend: str = ""
    lane: Optional[int] = None
    args: Optional[List[Any]] = None
    expected: Any = None
    got: Any = None
    dtype: str = ""
    detail: str = ""
    exc_type: str = ""
    known: str = ""  # the known-bug class this failure belongs to (KNOWN), if any

    def key(self) -> Tuple[str, str, str, str, str]:
        """What a minimized program must still fail with (``runner.py``): a rejection keeps its
        first problem's text, so the reproducer is rejected for what the program was (seed
        690001 #1508 drifted from a tuple unpacking to a name its edits had left undefined)."""
        problem = ""
        if self.kind == "rejected":
            found = re.search(r":\d+:\d+: (.*)", self.detail)
            problem = found.group(1) if found else self.detail
        return (self.kind, self.backend, self.exc_type, known_class(self), problem)


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
        if name in ("numpy", "blocked"):
            # ``blocked``: NumPy with the runtime's size gates forced open (forced.py).
            out[name] = np
        elif name == "strict":
            import array_api_strict

            out[name] = array_api_strict
        elif name == "dask":
            import dask.array

            out[name] = dask.array
        else:
            raise ValueError(f"unknown backend {name!r} (numpy, strict, dask, blocked)")
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
    """A program vectorized, with its CPython oracle and the model of the array rules over the IR
    the core reported (``model.py``; None when the model does not cover that IR)."""

    source: str
    entry: str
    vec: Any
    evaluator: "oracle.Evaluator"
    bool_only: bool
    models: Dict[Any, Tuple[Optional["model.Model"], str]] = field(default_factory=dict)  # ``ir_models``
    module: Dict[str, Any] = field(default_factory=dict)  # the namespace the program was imported in
    float_raise_operands: bool = False  # the core prints a float operand of an exception's message (``held_float``)
    nan_vec: Any = None  # the program vectorized with ``nan_on_raise=True`` (D11), when asked for
    protected_vec: Any = None  # the program vectorized with ``protect_domains=True`` (D1), when asked for
    protected_models: Any = None  # its IR models (``ir_models``): item 7's sites are not in it


def prepare(
    source: str, directory: str, entry: str = "f", reject: Optional[Tuple[int, int, str]] = None, nan_on_raise: bool = False,
    protect_domains: bool = False,
) -> Tuple[Result, Optional[Prepared]]:
    """Writes ``source`` to a file, imports it and vectorizes ``entry`` (also with
    ``nan_on_raise=True`` when ``nan_on_raise``, and with ``protect_domains=True`` when
    ``protect_domains``: safe operands on discarded lanes change no result, D1). Failures at
    this stage (rejections, crashes, a rejection program accepted, a static compile that differs)
    are in the result; ``Prepared`` is ``None`` then, except after a static compile's."""
    from array_vectorize import VectorizationError, first_call, vectorize

    result = Result()
    path = write_program(directory, source)
    try:
        fn = load(source, path, entry)
    except Exception as exc:  # noqa: BLE001
        result.failures.append(Failure("invalid", detail=f"the program does not run: {_exc_text(exc)}"))
        return result, None
    try:
        vec = vectorize(fn)
        # Issue 31: a function reading a name bound nowhere yet (a rejection program's) is
        # compiled at its first call; its compile is what the checks judge.
        first_call.resolve(vec)
        nan_vec = vectorize(fn, nan_on_raise=True) if nan_on_raise and reject is None else None
        protected_vec = vectorize(fn, protect_domains=True) if protect_domains and reject is None else None
    except VectorizationError as exc:
        if reject is None:
            known = ""
            if "may be undefined here: it is not assigned on every path" in str(exc):
                known = "undefined-after-scalar-return"  # wellformed.py proved every read defined
            result.failures.append(Failure("rejected", detail=str(exc), exc_type="VectorizationError", known=known))
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
    problem = static_compile_problem(source, path, entry, fn, vec)
    if problem:
        result.failures.append(Failure("paths", detail=problem))
    evaluator = oracle.Evaluator(source, path, entry)
    bool_only = returns_bool(ast.parse(source), entry)
    models = ir_models(fn)
    held = any(getattr(m, "float_raise_operands", False) for m, _ in models.values())
    return result, Prepared(
        source, entry, vec, evaluator, bool_only, models, fn.__globals__, nan_vec=nan_vec, float_raise_operands=held,
        protected_vec=protected_vec, protected_models=ir_models(fn, True) if protected_vec is not None else None,
    )


def static_compile_problem(source: str, path: str, entry: str, fn: Any, vec: Any) -> Optional[str]:
    """DESIGN.md section 2's invariant on this program: the static compile that the import hook
    and the build backend run (``_core.compile_module``, on the text with ``entry`` marked)
    generates the decorator's source byte for byte, and the assumptions it records hold for the
    live function (else every warm import would compile it again). None when both hold, or when
    the static compile defers to the decorator (a name it cannot resolve from the text)."""
    from array_vectorize import _core, precompiled

    lines = source.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith(f"def {entry}(")), 0)
    if at == 0 or lines[at - 1].strip():
        return None  # no blank line to put the decorator on without moving the lines below
    lines[at - 1] = "@vectorize"
    marked = "\n".join(lines) + "from array_vectorize import vectorize\n"
    try:
        entries = _core.compile_module(marked, path)
    except Exception as exc:  # noqa: BLE001 - the decorator compiled it: any error is a difference
        return f"the static compile raised {type(exc).__name__} where the decorator compiled:\n{exc}"
    static = next((e for e in entries if e.get("qualname") == entry), None)
    if static is None or static.get("status") != "ok":
        return None if static is not None and static.get("status") == "deferred" else f"no static entry: {static}"
    if static["source"] != vec.source:
        diff = difflib.unified_diff(vec.source.splitlines(True), static["source"].splitlines(True), "decorator", "static")
        return "the static compile generated other code than the decorator:\n" + "".join(diff)
    if not precompiled.assumptions_hold(fn, static.get("assumptions", ())):
        return f"the static compile's assumptions do not hold for the live function: {static.get('assumptions')}"
    return None


def check_program(
    source: str,
    columns: List[Column],
    names: Dict[str, Any],
    directory: str,
    entry: str = "f",
    reject: Optional[Tuple[int, int, str]] = None,
    nan_on_raise: bool = False,
    protect_domains: bool = False,
) -> Result:
    """Vectorizes ``entry`` of ``source`` and compares it with CPython on ``columns`` (also
    compiled with ``nan_on_raise=True`` when ``nan_on_raise``, with ``protect_domains=True``
    when ``protect_domains``)."""
    result, prepared = prepare(source, directory, entry, reject, nan_on_raise, protect_domains)
    if prepared is None:
        return result
    return compare(prepared, columns, names, result)


def judge(
    got: Any, kind: str, expected: Any, lane: int, explainer: Explainer, float_result: bool, special: Optional[str] = None,
    nan_mode: bool = False,
) -> str:
    """One element: ``"same"`` (CPython's value, ``oracle.agree``; within the documented ulps of
    the inexact D17 function ``special`` when the element's value is that function's result),
    ``"array-rules"`` (a documented difference, ``Explainer.explains``) or ``"mismatch"``. The
    one comparison of every differential layer (this fuzzer, tests/oracle.py)."""
    if special is not None:
        # The element's value is the inexact D17 function's own result: its bound, and no other.
        if oracle.special_close(got, kind, expected, special):
            return "same"
    elif oracle.close(got, kind, expected, explainer.ulps, float_result):
        return "same"
    if explainer.explains(lane, got, kind, expected, nan_mode):
        return "array-rules"
    return "mismatch"


def compare(prepared: Prepared, columns: List[Column], names: Dict[str, Any], result: Optional[Result] = None) -> Result:
    """Runs the vectorized function on ``columns`` on every backend of ``names`` and compares
    each element with CPython (``oracle.judge``). When some element raises (D11), the call must
    raise what the first raising element raises; compiled with ``nan_on_raise=True``, it gives
    NaN on the raising elements and CPython's values elsewhere."""
    result = result or Result()
    evaluator = prepared.evaluator
    n = lane_count(columns)
    expected = [evaluator.run(lane_args(columns, lane)) for lane in range(n)]
    result.cpython_ok = sum(1 for e in expected if isinstance(e, oracle.Ok) and not e.ieee)
    for e in expected:
        if isinstance(e, oracle.Invalid):
            result.failures.append(Failure("invalid", detail=f"CPython raised {type(e.error).__name__}: {e.error}"))
            return result
    # The first element that raises; an element with an int beyond int64 on the way (its
    # condition may go the other way, items 6, 13) is no sure witness either way.
    first_raise = next((lane for lane, e in enumerate(expected) if isinstance(e, oracle.Raised) and not e.wide), None)
    params = [([resolve(v, prepared.module) for v in c.values], "" if c.scalar else c.kind) for c in columns]
    explainers, protected_explainers = (
        _explainers(prepared, models, columns, params, names) for models in (prepared.models, prepared.protected_models)
    )
    runs = [(prepared.vec, False, "")]
    if prepared.nan_vec is not None:
        runs.append((prepared.nan_vec, True, " nan_on_raise"))
    if prepared.protected_vec is not None:
        runs.append((prepared.protected_vec, False, " protect_domains"))
    # Item 7: where a conversion beyond int64 raised, protect_domains=True saturates instead.
    protected = [getattr(e, "protected", None) or e for e in expected]
    protected_first_raise = next(
        (lane for lane, e in enumerate(protected) if isinstance(e, oracle.Raised) and not e.wide), None
    )
    plain = (expected, first_raise)
    for bname, xp in names.items():
        args = _backend_args(columns, bname, xp, prepared.module)
        for vec, nan_mode, how in runs:
            expected, first_raise = (protected, protected_first_raise) if how == " protect_domains" else plain
            explainer = (protected_explainers if how == " protect_domains" else explainers)[bname == "dask"]
            where = bname + how
            try:
                with forced() if bname == "blocked" else contextlib.nullcontext():
                    out = _call_quietly(vec, args)
                if bname == "dask":
                    out = _computed(out, xp)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # noqa: BLE001
                _judge_exception(exc, expected, first_raise, nan_mode, where, result, prepared.float_raise_operands, explainer)
                continue
            if first_raise is not None and not nan_mode:
                if _wide_before(expected, first_raise):
                    result.skipped["int-beyond-64-bits"] = result.skipped.get("int-beyond-64-bits", 0) + 1
                    continue
                if explainer.explains_raises(expected, range(n), None):
                    # The array rules raise on no element here: the returning elements compare.
                    _compare_values(prepared, out, xp, bname, where, expected, columns, explainer, nan_mode, result, True)
                    continue
                e = expected[first_raise]
                result.failures.append(Failure(
                    "mismatch", where, first_raise, lane_args(columns, first_raise), e.error, "a result", exc_type="no-raise",
                    detail=f"CPython raises {type(e.error).__name__}{e.error.args!r} first at element {first_raise}; the call returned",
                ))
                continue
            _compare_values(prepared, out, xp, bname, where, expected, columns, explainer, nan_mode, result)
    if any(f.exc_type == "value" for f in result.failures):
        classify_mismatches(result.failures, patterns(ast.parse(prepared.source), prepared.entry))
    return result


def _explainers(prepared: Prepared, models: Any, columns: List[Column], params: list, names: Dict[str, Any]) -> Dict[bool, Explainer]:
    """The explainer of ``models`` (None: none, as for a program not compiled with
    protect_domains) per laziness of the backends ``names``."""
    if models is None:
        return {}
    for m, _ in models.values():
        if isinstance(m, model.Model):
            m.module = prepared.module  # the Enum classes the IR reads as hidden parameters
    body = body_of(columns, models)
    return {lazy: Explainer(models, params, body, lazy) for lazy in {name == "dask" for name in names}}


#: CPython's ZeroDivisionError messages for ints, and for the same operation on floats.
_FLOAT_DIVISION = {
    "division by zero": {"float division by zero"},
    "integer division or modulo by zero": {"float floor division by zero", "float modulo", "float modulo by zero", "float divmod()"},
    "integer modulo by zero": {"float modulo", "float modulo by zero"},
}


def _float_division_message(exc: BaseException, want: BaseException) -> bool:
    """``exc`` is ``want``'s ZeroDivisionError as Python words it for float operands."""
    if type(exc) is not ZeroDivisionError or type(want) is not ZeroDivisionError:
        return False
    return len(exc.args) == len(want.args) == 1 and exc.args[0] in _FLOAT_DIVISION.get(want.args[0], ())


#: The words of item 17's OverflowError: an int beyond 64 bits meeting an integer array, an
#: int beyond the float range converted to float (CPython's own message), or a true division of
#: ints whose quotient is beyond it (CPython's ``2 ** 1100 / 3``).
_BEYOND_THE_FLOAT_RANGE = (
    "vectorized integers are 64-bit", "too large to convert to float", "integer division result too large for a float",
)


def _judge_exception(
    exc: BaseException, expected: list, first_raise: Optional[int], nan_mode: bool, where: str, result: Result,
    held_float: bool, explainer: "Explainer",
) -> None:
    """The call raised ``exc``: right when it is CPython's exception of the first raising element
    (same class, same args, a note naming that element), wrong otherwise."""
    if isinstance(exc, OverflowError) and any(text in str(exc) for text in _BEYOND_THE_FLOAT_RANGE):
        # docs/semantics.md item 17: a Python int beyond 64 bits meeting an integer array, or
        # converted to float beyond the float range (a true division of such ints too, seed
        # 690001 #928), raises, even on a path CPython does not take.
        result.skipped["int-beyond-64-bits"] = result.skipped.get("int-beyond-64-bits", 0) + 1
        return
    noted = _noted_element(exc)
    if noted is not None and noted < len(expected) and isinstance(expected[noted], oracle.Skip) and (
        first_raise is None or noted < first_raise
    ):
        # CPython's outcome for the element is not computed (an int power too large to hold,
        # beyond 64 bits: items 6, 17): whether it raises is not compared either.
        result.skipped[expected[noted].reason] = result.skipped.get(expected[noted].reason, 0) + 1
        return
    if noted is not None and noted < len(expected) and expected[noted].__dict__.get("wide") and (
        first_raise is None or noted < first_raise
    ):
        # The element computed an int beyond int64 (items 6, 13): its condition may differ.
        result.skipped["int-beyond-64-bits"] = result.skipped.get("int-beyond-64-bits", 0) + 1
        return
    if first_raise is not None and not nan_mode:
        want = expected[first_raise].error
        result.lanes += 1
        if oracle.same_exception(exc, want, ulps=explainer.ulps) and noted == first_raise:
            return
        # Item 37 at the site CPython raises at: the site's exception built again from the
        # operands as the array rules hold them (``formats_held``: exact, format specs and all).
        rebuilt = explainer.formats_held(noted, exc, want) if noted == first_raise else None
        if rebuilt:
            result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
            return
        if rebuilt is False:
            held_float = False  # built, and not the call's exception: no looser reading
        elif isinstance(explainer.model, model.Model):
            # Where the model cannot build the site's exception, it reads the site's operands
            # (``holds_numbers``); the IR's printed kinds only where it cannot.
            held_float = noted == first_raise and explainer.holds_numbers(noted)
        if held_float and noted == first_raise and oracle.same_exception(exc, want, ints_as_floats=True, ulps=explainer.ulps):
            # docs/semantics.md item 37: an int the core holds as float64 (item 8) formats as
            # a float in the message; the core prints that operand float.
            result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
            return
        if held_float and noted == first_raise and _float_division_message(exc, want):
            # Item 37: an int operand held as float64 (item 8) divides as a float, so Python
            # words the same ZeroDivisionError as a float division.
            result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
            return
        if noted != first_raise and _raise_explained(explainer, expected, exc, noted):
            result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
            return
        if explainer.explains_raise_site(expected, first_raise, exc, noted):
            result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
            return
        result.failures.append(Failure(
            "mismatch", where, first_raise, None, want, exc, exc_type="raise",
            detail=f"CPython raises {type(want).__name__}{want.args!r} first at element {first_raise}; the call raised "
            f"{type(exc).__name__}{exc.args!r} noted for element {noted}",
        ))
        return
    if noted is not None:  # an element raised (D11) where CPython raises on none, or nan_on_raise raised
        if not nan_mode and _raise_explained(explainer, expected, exc, noted):
            result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
            return
        result.failures.append(Failure(
            "mismatch", where, noted, None, None, exc, exc_type="raise",
            detail=f"the call raised {type(exc).__name__}{exc.args!r} for element {noted}; CPython raises on no element"
            + (" (nan_on_raise)" if nan_mode else ""),
        ))
        return
    result.failures.append(
        Failure("crash", where, detail=f"at call: {_exc_text(exc)}", exc_type=type(exc).__name__, known=_known_crash(exc))
    )


def _raise_explained(explainer: "Explainer", expected: list, exc: BaseException, noted: int) -> bool:
    """The call raised for element ``noted``, where CPython does not raise first: the IR raises
    as CPython does and the array rules raise first there, at a site of the class raised."""
    return explainer.explains_raises(expected, range(len(expected)), noted) and explainer.raises_this(noted, exc)


def _wide_before(expected: list, lane: int) -> bool:
    """Some element before ``lane`` computed an int beyond int64 (``oracle.WIDE``)."""
    return any(getattr(e, "wide", False) for e in expected[:lane])


def _noted_element(exc: BaseException) -> Optional[int]:
    """The flat index in the note D11 adds to an element's exception (docs/semantics.md item 26)."""
    for note in getattr(exc, "__notes__", None) or []:
        found = re.search(r"array-vectorize: raised for element .*\(flat index (\d+)\)", note)
        if found:
            return int(found.group(1))
    return None


def _compare_values(
    prepared: Prepared, out: Any, xp: Any, bname: str, where: str, expected: list, columns: List[Column],
    explainer: Explainer, nan_mode: bool, result: Result, raises_explained: bool = False,
) -> None:
    """Every element of ``out`` against CPython's (``judge``); in ``nan_mode`` a raising element
    is NaN (so the result is float64 when some element raises, D11's ``nan_on_raise``; one whose
    IR has no raise site keeps its kind)."""
    n = len(expected)
    problem = _shape_problem(out, xp, bname, n)
    if problem:
        sub = "odd-dtype" if problem.startswith("the result dtype") else "shape"
        result.failures.append(Failure("mismatch", where, detail=problem, exc_type=sub))
        return
    got = _to_numpy(out)
    kind = got.dtype.kind
    dtype = str(got.dtype)
    values = got.tolist()
    if prepared.bool_only and kind != "b" and not nan_mode and any(isinstance(e, oracle.Ok) for e in expected):
        result.failures.append(
            Failure("mismatch", where, dtype=dtype, detail=f"every return is a bool, but the result dtype is {dtype}", exc_type="dtype")
        )
    # Item 8 across the call's elements: a result whose kind the core leaves to the call ("num")
    # is one float64 array where CPython returns a float on some element, which the model cannot
    # always say (an out-of-line helper's `call`, seed 650001 #288).
    float_result = nan_mode or explainer.float_result() or (
        explainer.ret_kind == "num" and any(isinstance(e, oracle.Ok) and type(e.value) is float for e in expected)
    )
    for lane in range(n):
        e = expected[lane]
        if isinstance(e, oracle.Skip):
            result.skipped[e.reason] = result.skipped.get(e.reason, 0) + 1
            continue
        result.lanes += 1
        if isinstance(e, oracle.Raised):
            if values[lane] != values[lane] and nan_mode:
                continue
            if raises_explained or explainer.explains_raises(expected, [lane], {lane: values[lane] != values[lane]}):
                result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
                continue
            if e.wide:
                result.skipped["int-beyond-64-bits"] = result.skipped.get("int-beyond-64-bits", 0) + 1
                continue
            result.failures.append(Failure(
                "mismatch", where, lane, lane_args(columns, lane), e.error, values[lane], dtype, exc_type="value",
                detail=f"nan_on_raise: the element raises {type(e.error).__name__}, so its value is NaN",
            ))
            continue
        if e.ieee:
            result.ieee_lanes += 1
        verdict = judge(values[lane], kind, e.value, lane, explainer, float_result, e.special, nan_mode)
        if verdict == "same":
            continue
        if verdict == "array-rules":
            result.skipped[verdict] = result.skipped.get(verdict, 0) + 1
            continue
        if e.exact is not None and oracle.close(values[lane], kind, e.exact, explainer.ulps, float_result):
            continue  # CPython's own value: the core converted a constant exactly (Ok.exact)
        if nan_mode and values[lane] != values[lane] and explainer.explains_raises(expected, [lane], {lane: True}):
            result.skipped["array-rules"] = result.skipped.get("array-rules", 0) + 1
            continue
        if e.wide and (
            explainer.error or (nan_mode and values[lane] != values[lane]) or explainer.wraps_beyond_64_bits(lane, values[lane], kind)
        ):
            # CPython computed an int beyond int64 on this element, which the vectorized code
            # wraps (items 6, 13), and the model cannot read this IR (or this call) to say what
            # that gives, or whether the element raises then (nan_on_raise's NaN), or its plain
            # reading cannot hold that int where the array rules give the vectorized value.
            result.skipped["int-beyond-64-bits"] = result.skipped.get("int-beyond-64-bits", 0) + 1
            continue
        result.failures.append(
            Failure(
                "mismatch", where, lane, lane_args(columns, lane), e.value, values[lane], dtype,
                detail=explainer.error, exc_type="ieee" if e.ieee else "value",
            )
        )


def _backend_args(columns, bname, xp, module):
    """``columns`` as arrays of the backend ``bname`` (namespace ``xp``); a uniform argument
    that names an object of the program is read from the program's ``module``."""
    args = [resolve(to_numpy(c, np), module) for c in columns]
    if bname == "dask":
        # Chunked in three: the generated code must not depend on one chunk holding every lane.
        return [xp.from_array(a, chunks=max(1, -(-a.shape[0] // 3))) if isinstance(a, np.ndarray) and a.ndim else a for a in args]
    if bname not in ("numpy", "blocked"):
        args = [xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return args


class NotLazy(Exception):
    """A call on Dask arrays returned something other than a Dask array (docs/semantics.md: the
    generated code stays lazy on Dask)."""


def _computed(out: Any, da: Any) -> Any:
    """The NumPy array a Dask call's lazy result computes to (floating-point warnings silenced,
    as for the call)."""
    if not isinstance(out, da.Array):
        raise NotLazy(f"the call on Dask arrays returned a {type(out).__module__}.{type(out).__name__}")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return out.compute(scheduler="sync")


def _call_quietly(vec, args):
    """``vec(*args)`` with floating-point warnings silenced (D3 gives IEEE values)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return vec(*args)


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
    "undefined-after-scalar-return": "a name wellformed.py proves defined reported as maybe undefined (once: in a "
    "loop, a Python `if` one of whose branches returns; last: a loop after a partial break that returns on every "
    "staying lane, control.rs loop_after_partial_exit)",
    "raise-scalar-block": "a `raise`/`assert` (D11) inside a Python `if` (a uniform or constant test, D14), or followed "
    "by a Python `if`, a loop or an inlined helper that returns: was rejected (src/lower/exceptions/raise.rs); compiled since "
    "the Python `if` carries the raise codes of its sides out (scalar_if.rs raise_code_out)",
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
