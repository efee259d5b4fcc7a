"""The model of the array rules (``model.py``) as the checker reads it: the core's IR of a
program (``ir_models``), the body a call runs (``body_of``), and ``Explainer``, which says
whether a difference from CPython on one call is exactly a documented rule's
(docs/testing.md, "The model of the array rules").
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from . import irtext, model, oracle
from .inputs import Column

#: Tolerance for results of transcendental functions and float powers (documented divergence).
ULPS = 4

#: The keys of ``ir_models``: the helpers' body (unknown parameter kinds), the float fast path
#: (float64 parameters), the int body (int64 parameters) and the mixed body (int64 and float64
#: parameters of its kinds, issue 30).
EXACT_BODY, FLOAT_BODY, INT_BODY, MIXED_BODY = True, False, "int", "mixed"

#: The mixed body's prologue call in the exact body's text, with its kinds (codegen/assemble.rs).
MIXED_PROLOGUE = re.compile(r"""_vec_mixed_args\((['"])([if]*)\1""")

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def ir_models(fn: Any, protect_domains: bool = False) -> Dict[Any, Tuple[Optional["model.Model"], str]]:
    """The core's IR of ``fn`` (``compile_function(..., options={"ir": True})``; with
    ``protect_domains``, of that compile, which has no raise site of item 7) as a ``Model``
    and the printed kind of its result, per body (``EXACT_BODY``, ``FLOAT_BODY``, and
    ``INT_BODY`` and ``MIXED_BODY`` when the generated code has them: left out where they print
    as the exact body). The mixed body's model carries its kinds (``mixed_kinds``)."""
    from array_vectorize.api import compile_live

    try:
        compiled, _ = compile_live(fn, {"ir": True, "protect_domains": protect_domains})
    except Exception:  # noqa: BLE001 - the decorator's own compile is what the checks judge
        return {EXACT_BODY: (None, ""), FLOAT_BODY: (None, "")}
    models = {EXACT_BODY: _model(compiled.get("ir", "")), FLOAT_BODY: _model(compiled.get("float_ir", ""))}
    if "_vec_int_args(" in compiled.get("exact_source", ""):
        models[INT_BODY] = _model(compiled.get("int_ir", ""))
    kinds = mixed_kinds(compiled)
    if kinds is not None:
        models[MIXED_BODY] = _model(compiled["mixed_ir"])
        if models[MIXED_BODY][0] is not None:
            models[MIXED_BODY][0].mixed_kinds = kinds
    return models


def mixed_kinds(compiled: Dict[str, Any]) -> Optional[Dict[int, str]]:
    """The kinds the mixed body's prologue takes (``i`` or ``f``), per declared parameter it
    receives, when the generated code has a mixed body (``_vec_mixed_args``, issue 30): its
    kinds string covers the parameters not uniform (D14) in order, then hidden arrays (D8),
    which the IR's signature tells apart (``x, cfg: uniform; H``). None without one."""
    found = MIXED_PROLOGUE.search(compiled.get("exact_source", ""))
    text = compiled.get("mixed_ir", "")
    if found is None or not text:
        return None
    head = next(line for line in text.splitlines() if line.startswith("fn "))
    declared = head[head.index("(") + 1 : head.rindex(")")].partition(";")[0]
    params = [p.strip() for p in declared.split(",") if p.strip()]
    passed = [k for k, p in enumerate(params) if not p.endswith(": uniform")]
    return dict(zip(passed, found.group(2)))


def _model(text: str) -> Tuple[Optional["model.Model"], str]:
    if not text:
        return None, ""
    try:
        function = irtext.read(text)
    except ValueError as exc:  # not this format: nothing to explain with, nothing to allow
        return Unmodelled(None, f"{type(exc).__name__}: {exc}"), ""
    kind = function.kinds.get(function.ret[0], "") if len(function.ret) == 1 and not function.tuple else ""
    try:
        found = model.Model(function)
        found.float_raise_operands = float_raise_operands(function)
        found.uniform_number = uniform_number(function)
        found.number_params = number_params(function)
        return found, kind
    except (model.Unsupported, ValueError, SyntaxError, AttributeError, IndexError, TypeError, NameError) as exc:
        return Unmodelled(function, f"{type(exc).__name__}: {exc}"), kind


def float_raise_operands(function: irtext.IrFunction) -> bool:
    """The core prints some operand of a raise site's message as a float or an int: an int
    merged with floats is held as float64 (item 8), a bool merged with numbers as a number, and
    formats as one (item 37)."""
    return any(function.kinds.get(r) in ("float", "int") for site in function.sites.values() for r in site.refs)


def uniform_number(function: irtext.IrFunction) -> bool:
    """Some uniform object (D14) is converted to a number (``uniform Number(...)``)."""
    return any(let.op == "uniform" and let.args[0] == "Number" for let in function.lets())


def number_params(function: irtext.IrFunction) -> set:
    """The parameters the IR reads as numbers (``param k``; the others it reads as uniform
    objects, D14): the generated code passes these to its argument prologue."""
    return {let.args[0] for let in function.lets() if let.op == "param"}


def body_of(columns: List[Column], models: Dict[Any, Tuple[Optional["model.Model"], str]]) -> Any:
    """The key of ``ir_models`` for the body a call with these columns runs."""
    if fast_path(columns, models):
        return FLOAT_BODY
    if INT_BODY in models and int_path(columns, models):
        return INT_BODY
    if MIXED_BODY in models and mixed_path(columns, models):
        return MIXED_BODY
    return EXACT_BODY


def mixed_path(columns: List[Column], models: Dict[Any, Tuple[Optional["model.Model"], str]]) -> bool:
    """The call takes the mixed body (``runtime/args.py``, ``_typed_plan``): every argument its
    prologue receives is of the kind the body takes there, an int64 array or a Python int within
    int64 for ``i``, a float64 array or a Python float for ``f`` (a uniform argument read as a
    number too: ``None`` is passed as ``False``, the exact body), and one of them an array (on
    NumPy a call of Python scalars alone takes the exact body)."""
    kinds = getattr(models[MIXED_BODY][0], "mixed_kinds", None)
    if kinds is None:
        return False
    array = False
    for k, c in enumerate(columns):
        want = kinds.get(k)
        if want is None:
            continue  # uniform (D14): not passed to the prologue
        if c.kind == "o" or c.scalar:
            v = c.values[0]
            if not (_int64(v) if want == "i" else type(v) is float):
                return False
        elif c.kind != want:
            return False
        else:
            array = True
    return array


def int_path(columns: List[Column], models: Dict[Any, Tuple[Optional["model.Model"], str]]) -> bool:
    """The call takes the int body: every argument the int prologue receives is an int64 array
    or a Python int within int64, and one of them an array (``runtime/args.py``: on NumPy a call
    of Python scalars alone takes the exact body). A uniform argument read as a number is passed
    too (``None`` as ``False``, a bool: the exact body), and so is a uint64 parameter given as a
    Python int within int64 (seed 690005 #1216: ``p0=0``)."""
    m = models.get(EXACT_BODY, (None, ""))[0]
    numbers = getattr(m, "number_params", set())
    array = False
    for k, c in enumerate(columns):
        if c.kind == "o":
            if k in numbers and not _int64(c.values[0]):
                return False
        elif c.kind == "u" and c.scalar:
            if not _int64(c.values[0]):
                return False
        elif c.kind != "i":
            return False
        elif not c.scalar:
            array = True
    return array


def _int64(v: Any) -> bool:
    return type(v) is int and INT64_MIN <= v <= INT64_MAX


def _number(v: Any) -> bool:
    return type(v) in (int, float, bool)


def build_site(m: Any, code: Any, values: List[Any]) -> Optional[BaseException]:
    """The exception raise site ``code`` of model ``m`` builds with ``values`` for its free
    names, built as the generated code builds it: the site's expression in a ``lambda`` of
    those names, evaluated in the program's module (``_vec_raises``' argument, emitted by the
    core), then called; an operation's site (item 7's conversion, a numeric error of a ``try``
    body) as ``Model.site_exception`` builds it (seed 690002 #357: item 7's message showing a
    value item 9 computed). None for a residue's site (D19: the scalar original raises it again,
    ``Model.site_exception``) and where the model cannot evaluate it (no module, a name the
    module lacks)."""
    site = m.sites.get(int(code)) if code is not model.POISON and code else None
    if site is None or site.rerun is not None or len(site.names) != len(values):
        return None
    if site.operation:
        return model.operation_exception(site, values)
    if not m.module:
        return None
    names = site.names
    try:
        made = eval(f"lambda {', '.join(names)}: ({site.expr})", m.module)(*values)  # noqa: S307 - the program's own site
    except NameError:
        return None
    except Exception as exc:  # noqa: BLE001 - building the exception raises: the call raises that
        return exc
    if isinstance(made, type) and issubclass(made, BaseException):
        made = made()
    return made if isinstance(made, BaseException) else None


def fast_path(columns: List[Column], models: Dict[Any, Tuple[Optional["model.Model"], str]]) -> bool:
    """The call takes the float fast path: every argument the prologue receives is float64 or
    a Python float (``runtime/args.py``). A uniform argument (D14) read as a number is passed
    too (``None`` as 0.0): an int there (``cap=3``) sends the call to the helpers' body."""
    m = models.get(FLOAT_BODY, (None, ""))[0]
    numbers = getattr(m, "number_params", set())
    for k, c in enumerate(columns):
        if c.kind == "o":
            if k in numbers and not (c.values[0] is None or type(c.values[0]) is float):
                return False
        elif c.kind != "f":
            return False
    return True


class Unmodelled:
    """IR the model does not interpret (D11 raises, D14 uniform values...): it explains no
    difference, but item 9's ulps still apply where the IR holds transcendental functions."""

    def __init__(self, function: Optional[irtext.IrFunction], why: str) -> None:
        self.approximate = function is not None and model.approximate(function)
        self.float_raise_operands = function is not None and float_raise_operands(function)
        self.uniform_number = function is not None and uniform_number(function)
        self.number_params = set() if function is None else number_params(function)
        self.why = why

    def run(self, *args: Any, **kwargs: Any) -> Any:
        raise model.Unsupported(self.why)


class Explainer:
    """The model of the array rules for one call (``model.py``): ``plain`` once for all lanes,
    ``arrays`` once, both lazily. ``params``: per declared parameter, its lanes and its dtype kind
    (empty for a Python scalar, ``Model.run``); ``body``: the body the call runs (``body_of``):
    the float fast path, compiled from the IR with float64 parameters, the int body, from the IR
    with int64 parameters, or the helpers' body, from the IR with unknown kinds. The int body
    computes every operation it does not print as the library's with the helpers, as the
    helpers' body does (``exact_body`` of ``Model.run``)."""

    def __init__(
        self, models: Dict[Any, Tuple[Optional["model.Model"], str]], params: List[Tuple[List[Any], str]], body: Any,
        lazy: bool = False,
    ) -> None:
        self.params = params
        self.lazy = lazy  # the call's arrays are Dask's (item 12, ``Model.lazy``)
        self.exact_body = body is not FLOAT_BODY
        self.model, self.ret_kind = models.get(body, (None, ""))
        self._plain: Dict[bool, List[Any]] = {}
        self._arrays: Optional[Tuple[List[Any], str]] = None
        self._raises: Dict[Any, List[bool]] = {}  # which lanes raise (D11), per run of the model
        self._plain_classes: Dict[bool, List[Optional[str]]] = {}  # the class each lane raises, plain
        self._nan_signs: Dict[float, Any] = {}  # ``arrays`` with D3 NaNs of one sign (item 18)
        self._nan_sign_raises: Dict[float, List[bool]] = {}  # which lanes raise in those runs
        self._arrays_signs_nans = False  # ``arrays`` met a NaN whose sign is a pick (item 18)
        self._plain_signs_nans: Dict[bool, bool] = {}  # ``plain`` (by ``stated``) showed one
        self._plain_signed: Optional[List[List[Any]]] = None  # ``plain`` with those of one sign
        self._library_plains: Optional[List[List[Any]]] = None  # ``library_plains``
        self._plain_operands: Dict[bool, List[Optional[tuple]]] = {}
        # Per lane, under ``arrays``: the class of the site it raises at, that site's exception
        # where the model builds it, and the site with its operands' values.
        self._raise_classes: List[Optional[str]] = []
        self._raise_exceptions: List[Optional[BaseException]] = []
        self._held: List[Optional[tuple]] = []
        self.error = ""

    def arrays(self) -> Optional[Tuple[List[Any], str]]:
        if self._arrays is None and self.model is not None and not self.error:
            try:
                self.model.lazy = self.lazy
                try:
                    self._arrays = self.model.run(self.params, arrays=True, exact_body=self.exact_body)
                finally:
                    self.model.lazy = False
                self._raises["arrays"] = self.model.raises
                self._raise_classes = self._site_classes()
                m = self.model
                self._raise_exceptions = [m.site_exception(c, lane) if c else None for lane, c in enumerate(m.raise_codes)]
                self._held = self._site_operands()
                self._arrays_signs_nans = m.d3_nans or m.nan_signs_shown
            except Exception as exc:  # noqa: BLE001 - a gap of the model: reported with the mismatch
                self.error = f"model: {type(exc).__name__}: {exc}"
        return self._arrays

    def plain(self, stated: bool = False) -> Optional[List[Any]]:
        if stated not in self._plain and self.model is not None and not self.error:
            try:
                self._plain[stated] = self.model.run(self.params, arrays=False, stated=stated)[0]
                self._raises[stated] = self.model.raises
                self._plain_classes[stated] = self._site_classes()
                self._plain_operands[stated] = self._site_operands()
                self._plain_signs_nans[stated] = self.model.nan_signs_shown
            except Exception as exc:  # noqa: BLE001
                self.error = f"model: {type(exc).__name__}: {exc}"
        return self._plain.get(stated)

    def library_plains(self) -> List[List[Any]]:
        """The plain readings with float powers, transcendental functions or both computed by
        NumPy (``Model.run``'s ``library``): CPython runs a program's D16 calls
        (``np.power(p0, 1.5)``) with NumPy, which the IR reads as ``**`` and ``math``, and
        NumPy's loop can round an ulp from the C library's, which a later ``%`` makes many (seed
        440007 #1945). Only where such functions are on the way (``Model.approximate``)."""
        if self._library_plains is None:
            self._library_plains = []
            if self.model is not None and self.model.approximate and not self.error:
                for library in (("pow",), ("math",), ("pow", "math")):
                    try:
                        self._library_plains.append(self.model.run(self.params, arrays=False, library=library)[0])
                    except Exception:  # noqa: BLE001 - no explanation from this reading (plain's own errors are reported)
                        continue
        return self._library_plains

    @property
    def ulps(self) -> int:
        """Item 9: a few ulps where transcendental functions or float powers are on the way."""
        return ULPS if self.model is not None and self.model.approximate else 0

    def float_result(self) -> bool:
        """The core says the result is float64 (its printed kind, or the kind the array rules
        give it over the IR): an int result may then be held as a float (item 8)."""
        arrays = self.arrays()
        # "num" where the IR reads a number from a uniform value (D14): a kind the core leaves
        # to the call, where an int merged with a float is held as float64 too (item 8).
        left_to_the_call = self.ret_kind == "num" and getattr(self.model, "uniform_number", False)
        return self.ret_kind == "float" or left_to_the_call or (arrays is not None and arrays[1] == "f")

    def explains_raises(self, expected: list, lanes: Any, vectorized: Any) -> bool:
        """The IR decides CPython's raises on ``lanes`` (``plain``) and the array rules give the
        vectorized call's (``arrays``): a raise decision that differs only by the documented
        array rules (item 8's floats, items 6, 13's wrapping, item 18's NaN signs).
        ``vectorized``: the element the call raised for first (None: it returned), or, per lane
        of ``lanes``, whether it raised there (``nan_on_raise``)."""
        if self.arrays() is None:
            return False
        arrays = self._raises.get("arrays")
        # A lane where CPython computed an int beyond int64 (``wide``: items 6, 13, 17) is held
        # otherwise by the IR, its plain reading too (an int beyond int64 meeting item 7's check
        # of a float held as one, item 8): its raise decision is not CPython's to compare (seed
        # 690003 #113, where another lane's raise was then left unexplained).
        compared = [lane for lane in lanes if not isinstance(expected[lane], oracle.Skip) and not getattr(expected[lane], "wide", False)]
        ok = False
        for stated in (False, True):
            if self.plain(stated) is None:
                continue
            plain = self._raises.get(stated, [])
            ok = ok or all(plain[lane] == isinstance(expected[lane], oracle.Raised) for lane in compared)
        if not ok or arrays is None:
            return False
        # Item 18: a raise decided by the sign of a D3 NaN (`copysign(1, fmod(x, 0)) > 0`) is
        # the array library's pick, lane by lane (NumPy's fmod(x, 0) takes x's sign): a lane may
        # raise (or return) where the model raises (or returns) with either sign.
        self._signed_nans()
        runs = [arrays] + list(self._nan_sign_raises.values())
        may = [{r[lane] for r in runs} for lane in range(len(arrays))]
        if isinstance(vectorized, dict):
            return all(vectorized[lane] in may[lane] for lane in lanes)
        first = len(arrays) if vectorized is None else vectorized
        return all(False in may[lane] for lane in range(first)) and (vectorized is None or True in may[vectorized])

    def _site_classes(self) -> List[Optional[str]]:
        """Per lane, the class of the site the last run of the model raises at (None: none)."""
        m = self.model
        return [m.site_class(c, lane) if c else None for lane, c in enumerate(m.raise_codes)]

    def _site_operands(self) -> List[Optional[tuple]]:
        """Per lane, the site the last run raises at and the values of its operands."""
        m = self.model
        out: List[Optional[list]] = []
        for lane, c in enumerate(m.raise_codes):
            site = m.sites.get(int(c)) if c and c is not model.POISON else None
            out.append(None if site is None else (c, [
                m.env[r].lanes[lane] if len(m.env[r].lanes) > lane else m.env[r].lanes[0] for r in site.refs
            ]))
        return out

    def explains_raise_site(self, expected: list, first_raise: int, exc: BaseException, noted: int) -> bool:
        """CPython raises first at ``first_raise`` and so does the call, but another exception:
        the IR raises CPython's class first there (``plain``: a site of that class, every raise
        decision CPython's) and the array rules raise the call's at another site (``arrays``):
        an int held as float64 compared with an int, or divided by zero (item 8), took the other
        site. With the same class the sites must differ and the model must build the call's
        exception (args and all): the same site with other args is item 37 or a mismatch."""
        want = type(expected[first_raise].error).__name__
        if noted != first_raise:
            return False
        if not self.explains_raises(expected, range(len(expected)), noted) or not self.raises_this(noted, exc):
            return False
        if want == type(exc).__name__:
            held = self._held[noted] if noted < len(self._held) else None
            built = self._raise_exceptions[noted] if noted < len(self._raise_exceptions) else None
            if built is None and held is not None:
                # A site formatting the program's values (item 8 took the lanes to it, seed
                # 563004 #1012: `b > min(1, 0.5, b)` with the min held as float64), built from
                # the array rules' values: the call formats them exactly.
                built = build_site(self.model, held[0], held[1])
                if built is not None and not oracle.same_exception(exc, built):
                    return False
            if held is None or built is None:
                return False
        else:
            held = None
        return any(
            classes[first_raise] == want
            and (held is None or self._plain_site(stated, first_raise) not in (None, held[0]))
            and self._plain_builds(stated, first_raise, expected[first_raise].error)
            and all(
                self._raises[stated][lane] == isinstance(e, oracle.Raised)
                for lane, e in enumerate(expected) if not isinstance(e, oracle.Skip)
            )
            for stated, classes in self._plain_classes.items()
        )

    def _plain_builds(self, stated: bool, lane: int, want: BaseException) -> bool:
        """``plain`` (by ``stated``) raises CPython's exception ``want`` on ``lane`` where the
        model can build its site's exception (``build_site``); True where it cannot."""
        operands = self._plain_operands.get(stated, [])
        if lane >= len(operands) or operands[lane] is None:
            return True
        built = build_site(self.model, *operands[lane])
        return built is None or oracle.same_exception(built, want, ulps=self.ulps)

    def _plain_site(self, stated: bool, lane: int) -> Any:
        """The site ``plain`` (by ``stated``) raises at on ``lane`` (None: none known)."""
        operands = self._plain_operands.get(stated, [])
        return operands[lane][0] if lane < len(operands) and operands[lane] is not None else None

    def holds_numbers(self, lane: int) -> bool:
        """Item 37: an operand of the site that raises on ``lane`` is, under the array rules, a
        float where the IR's plain reading has an int (item 8), or a number where it has a bool
        (a bool merged with numbers): the message formats that number."""
        if self.arrays() is None:
            return False
        held = self._held
        if lane >= len(held) or held[lane] is None:
            return False
        for stated in (False, True):
            if self.plain(stated) is None:
                continue
            plain = self._plain_operands.get(stated, [])
            if lane >= len(plain) or plain[lane] is None or plain[lane][0] != held[lane][0]:
                continue  # the same site on both readings
            for a, p in zip(held[lane][1], plain[lane][1]):
                if type(a) is float and type(p) in (int, bool) or type(a) is int and type(p) is bool:
                    return True
        return False

    def formats_held(self, lane: int, exc: BaseException, want: BaseException) -> Optional[bool]:
        """Item 37: the call raises at the site CPython raises at on ``lane``, its exception
        built from each operand as the array rules hold it: an int held as float64 (item 8) and
        what D3 then gives (``0.0 // 0`` is nan where CPython's int ``0 // 0`` is D3's 0), a bool
        merged with numbers as a number, or a number computed from one (``S0[int(2 // 0.0) %
        4]``, item 7's saturation on the way). The site's exception is built again as the
        generated code builds it (``build_site``), from the plain reading's operands, which must
        give CPython's exception, and from the held ones, which must give the call's: a format
        spec formats the held value as it formats it there (``{!r:>12}`` pads ``0.0`` to the
        width it pads ``0``). True: explained; False: built, and not the call's exception;
        None: the model cannot build it on this lane (another site, no plain reading)."""
        if self.arrays() is None:
            return None
        held = self._held[lane] if lane < len(self._held) else None
        if held is None:
            return None
        verdict = None
        for stated in (False, True):
            if self.plain(stated) is None:
                continue
            plain = self._plain_operands.get(stated, [])
            if lane >= len(plain) or plain[lane] is None or plain[lane][0] != held[0]:
                continue
            if not all(
                type(a) is type(p) and (a == p or a != a and p != p) or _number(a) and _number(p)
                for a, p in zip(held[1], plain[lane][1])
            ):
                continue  # another value than a number held otherwise (items 7, 8 on the way)
            cpythons = build_site(self.model, held[0], plain[lane][1])
            calls = build_site(self.model, held[0], held[1])
            if cpythons is None or calls is None:
                continue
            # The plain reading stands for CPython within item 9's ulps; the held values are the
            # array rules' own, which the call formats exactly.
            verdict = bool(verdict) or (oracle.same_exception(cpythons, want, ulps=self.ulps) and oracle.same_exception(exc, calls))
        return verdict

    def raises_this(self, lane: int, exc: BaseException) -> bool:
        """The array rules raise ``exc``'s class on ``lane`` (after ``arrays``), with ``exc``'s
        args where the model can build the site's exception."""
        if self.raise_class(lane) != type(exc).__name__:
            return False
        built = self._raise_exceptions
        return lane >= len(built) or built[lane] is None or oracle.same_exception(exc, built[lane], ulps=self.ulps)

    def raise_class(self, lane: int) -> Optional[str]:
        """The exception class the array rules raise on ``lane`` (after ``explains_raises``)."""
        classes = self._raise_classes
        return classes[lane] if lane < len(classes) else None

    def wraps_beyond_64_bits(self, lane: int, got: Any, kind: str) -> bool:
        """On an element where CPython computed an int beyond int64, the IR's plain reading
        cannot hold it either (an int past the float range met a float conversion the core
        states, ``cast.float``: the model's POISON), and the array rules, which wrap it (items 6,
        13), give the vectorized value."""
        arrays = self.arrays()
        plains = [p for p in (self.plain(), self.plain(stated=True)) if p is not None]
        if arrays is None or not plains or any(p[lane] is not model.POISON for p in plains):
            return False
        return oracle.close(got, kind, arrays[0][lane], self.ulps, float_result=arrays[1] == "f")

    def explains(self, lane: int, got: Any, kind: str, expected: Any, float_result: bool = False) -> bool:
        """The IR computes CPython's value on this element (``plain``, with or without the
        floats the core states) and the array rules give the vectorized value (``arrays``): the
        difference is a documented one."""
        arrays = self.arrays()
        if arrays is None:
            return False
        plains = [self.plain(), self.plain(stated=True)] + self._signed_plains()
        held = arrays[1] == "f"
        if not any(p is not None and self._plain_is_cpythons(p[lane], expected, held) for p in plains):
            plains = self.library_plains()
        if not any(p is not None and self._plain_is_cpythons(p[lane], expected, held) for p in plains):
            return False
        return any(
            oracle.close(got, kind, a[0][lane], self.ulps, float_result=float_result or a[1] == "f")
            for a in [arrays] + self._signed_nans()
        )

    def _plain_is_cpythons(self, plain: Any, expected: Any, held: bool = False) -> bool:
        """The ``plain`` reading gives CPython's value: exactly, or within item 9's ulps where
        transcendental functions are on the way (the IR reads ``np.exp(x)`` of the source as
        ``math.exp``, and NumPy's loop on a Python number may round otherwise than libm). Where
        the IR's result is float (``held``), CPython's int or bool is the float it converts to,
        as ``oracle.agree`` reads the call's float64 result (seed 670001 #1398: the plain
        reading's 0.0 for CPython's ``np.sign(False)``, 0)."""
        if oracle.same_value(plain, expected):
            return True
        if held and type(plain) is float and type(expected) in (int, bool):
            try:
                return oracle.same_float(plain, float(expected))
            except OverflowError:
                return False
        return type(plain) is float and type(expected) is float and oracle.close(plain, "f", expected, self.ulps)

    def _signed_plains(self) -> List[List[Any]]:
        """Item 18 in the ``plain`` reading: where it shows the sign of a NaN computed from NaNs
        (``math.copysign``), CPython's own operand order picked that sign, which the IR's order
        need not keep. The ``plain`` readings with such signs negative, and positive."""
        if self._plain_signed is None:
            self._plain_signed = []
            for stated in (False, True):
                if not self._plain_signs_nans.get(stated):
                    continue
                for sign in (-1.0, 1.0):
                    run = self._run_with_nan_sign(sign, arrays=False, stated=stated)
                    if run is not None:
                        self._plain_signed.append(run[0])
        return self._plain_signed

    def _run_with_nan_sign(self, sign: float, **how: Any) -> Optional[Tuple[List[Any], str]]:
        """A run of the model (``Model.run``'s ``how``) with the NaNs whose sign is a pick
        (item 18) of sign ``sign``; None where the model cannot give it (no explanation)."""
        self.model.nan_sign = sign
        try:
            return self.model.run(self.params, **how)
        except Exception:  # noqa: BLE001 - a gap of the model: no explanation
            return None
        finally:
            self.model.nan_sign = None

    def _signed_nans(self) -> List[Tuple[List[Any], str]]:
        """Item 18: where a D17 helper or a division gives a NaN for a call CPython refuses
        (D3), and where a NaN is computed from NaNs, that NaN's sign is the array library's,
        which ``math.copysign`` shows. The ``arrays`` reading with such NaNs (and the results of
        ``copysign`` of a NaN) negative, and positive (only when the model met one)."""
        if not self._arrays_signs_nans:
            return []
        out = []
        for sign in (-1.0, 1.0):
            if sign not in self._nan_signs:
                self._nan_signs[sign] = self._run_with_nan_sign(sign, arrays=True, exact_body=self.exact_body)
                if self._nan_signs[sign] is not None:
                    self._nan_sign_raises[sign] = list(self.model.raises)
            if self._nan_signs[sign] is not None:
                out.append(self._nan_signs[sign])
        return out
