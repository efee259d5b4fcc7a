"""The core's IR text read into Python: the grammar of ``src/ir/read.rs`` (its module comment
declares it, versioned), implemented once more here for the fuzz model, with the version checked.

Why a second reader of one declared grammar rather than a JSON form the core emits: the text is
what every other consumer already reads (``ARRAY_VECTORIZE_DEBUG=ir``, the compiler snapshots, the
pass fixtures), and the Rust reader proves the printer and the grammar agree (print -> read ->
print is identical over every fixture, tests/ir_text.rs). A JSON form would be a second printed
format to keep in step with the first. ``FORMAT_VERSION`` here must equal the Rust one: a text in
another version is refused, never half read.

``read(text)`` gives an ``IrFunction``: its parameters' names (hidden ones included, D8), the body
as nested ``Let`` / ``Loop`` / ``If`` nodes, the returned values, the raise code and sites (D11),
and every value's printed kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

FORMAT_VERSION = 1
_HEADER = "; ir-format: "

#: NumPy's rounding (D16) prints as ``math.numpy.floor``; the model knows it by the short name.
_NUMPY_ROUNDING = ("floor", "ceil", "trunc", "round")
_CONSTANTS = {"inf": math.inf, "nan": math.nan}


class IrTextError(ValueError):
    """The text is not IR in this format; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"{line}: {message}")
        self.line = line


@dataclass
class Let:
    dst: int
    scalar: bool
    kind: str
    op: str
    args: List[Any]


@dataclass
class Merge:
    dst: int
    kind: str
    first: int
    second: int


@dataclass
class Loop:
    index: int
    items: Any  # a tuple, or range(...); None for a data-dependent loop (D12)
    phis: List[Merge]
    body: list
    active: Optional[int] = None  # the phi of a data-dependent loop's active lanes


@dataclass
class If:
    cond: int
    then: list
    other: list
    outs: List[Merge] = field(default_factory=list)


@dataclass
class Lambda:
    """What a ``call_site`` calls when it is the call as written (D23): ``lambda params: body``."""

    params: List[str]
    body: str


@dataclass
class Site:
    """A raise site (D11): the expression as written, its free names and their values."""

    expr: str
    names: List[str]
    refs: List[int]
    cause: Optional[str] = None


@dataclass
class IrFunction:
    name: str
    params: List[str]  # declared, then hidden (D8)
    body: list
    ret: List[int]
    tuple: bool
    raise_code: Optional[int] = None
    nan_on_raise: bool = False
    sites: Dict[int, Site] = field(default_factory=dict)
    kinds: Dict[int, str] = field(default_factory=dict)  # every value's printed kind

    def lets(self) -> Iterator[Let]:
        """Every operation, in text order (into loops and both sides of an ``if``)."""

        def walk(block: list) -> Iterator[Let]:
            for node in block:
                if isinstance(node, Let):
                    yield node
                elif isinstance(node, Loop):
                    yield from walk(node.body)
                elif isinstance(node, If):
                    yield from walk(node.then)
                    yield from walk(node.other)

        return walk(self.body)


def const(text: str) -> Any:
    """A ``CONST``: Python's repr of a number, bool, or tuple/list/dict of those."""
    return eval(text, {"__builtins__": {}}, _CONSTANTS)  # noqa: S307 - the core's printed constant


def unescape(text: str) -> str:
    """``TEXT`` / ``STRING`` escapes: ``\\\\``, ``\\"``, ``\\n``, ``\\r``, ``\\t``, ``\\u{hex}``."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        if nxt in ("\\", '"'):
            out.append(nxt)
        elif nxt in ("n", "r", "t"):
            out.append({"n": "\n", "r": "\r", "t": "\t"}[nxt])
        elif nxt == "u" and text[i + 2 : i + 3] == "{":
            end = text.index("}", i)
            out.append(chr(int(text[i + 3 : end], 16)))
            i = end + 1
            continue
        else:
            raise ValueError(f"bad escape in {text!r}")
        i += 2
    return "".join(out)


def value(token: str) -> int:
    """``%n``."""
    token = token.strip()
    if not token.startswith("%") or not token[1:].isdigit():
        raise ValueError(f"expected a value, found {token!r}")
    return int(token[1:])


def values(text: str) -> List[int]:
    """``%a, %b, ...`` (possibly empty)."""
    return [value(t) for t in text.split(",")] if text.strip() else []


def _between(text: str, open_: str, close: str) -> Tuple[str, str]:
    """The text inside the first ``open_ ... close`` (balanced, outside quotes) and what follows."""
    start = text.index(open_)
    depth, quoted, i = 0, False, start
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return text[start + 1 : i], text[i + 1 :]
        i += 1
    raise ValueError(f"unbalanced {open_!r} in {text!r}")


def _uniform(text: str) -> List[Any]:
    """``[name, payload, operand...]`` of ``uniform Name(payload)(values)``; the payload read:
    an int (``Arg``, ``Global``), a string (``Builtin``, ``Attr``, ``Lit(Str)``), None (``Lit(None)``),
    a comparison's name (``Compare``), the element types (``ElementIs``, D22: ``bool|int``, ``none``),
    None where there is none."""
    paren = text.find("(")
    name = text[:paren]
    rest = text[paren:]
    payload: Any = None
    if name in ("Arg", "Global", "Builtin", "Lit", "Attr", "Compare", "ElementIs", "Unpack"):
        inner, rest = _between(rest, "(", ")")
        if name in ("Arg", "Global", "Unpack"):
            payload = int(inner)
        elif name in ("Builtin", "Attr"):
            payload = unescape(inner[1:-1])
        elif name == "Lit":
            payload = None if inner == "None" else unescape(_between(inner, "(", ")")[0][1:-1])
        else:
            payload = inner
    operands, _ = _between(rest, "(", ")")
    return [name, payload] + values(operands)


def _lambda(text: str) -> List[Any]:
    """``[Lambda, operand...]`` of ``(lambda PARAMS: TEXT)(values)`` (D23): the call as written,
    whose text runs to the ``)(`` before the operands (the line's last ``(``: operands hold none)."""
    head, _, operands = text.rpartition("(")
    params, colon, body = head[len("(lambda ") :].partition(":")
    if not (colon and body.endswith(")") and operands.rstrip().endswith(")")):
        raise ValueError(f"expected `(lambda params: text)(values)`, found {text!r}")
    names = [p.strip() for p in params.split(",") if p.strip()]
    return [Lambda(names, unescape(body[1:-1]))] + values(operands.rstrip()[:-1])


def op(text: str) -> Tuple[str, List[Any]]:
    """An ``op`` of the grammar: its head and its arguments."""
    head, _, rest = text.partition(" ")
    if head in ("const", "placeholder"):
        return head, [const(rest)]
    if head == "param":
        return head, [int(rest)]
    if text.startswith("math."):
        name, _, args = text[5:].partition("(")
        if name.startswith("numpy.") and name[6:] in _NUMPY_ROUNDING:
            name = name[6:]
        return "math", [name] + values(args.rstrip()[:-1])
    if text.startswith("call @") or text.startswith("residue #") or text.startswith("call_site #"):
        callee, _, args = rest.partition("(")
        return head, [int(callee[1:])] + values(args.rstrip()[:-1])
    if text.startswith("call_site (lambda "):
        return "call_site", _lambda(rest)
    if head == "uniform":
        return "uniform", _uniform(rest)
    if head == "index":
        base, _, index = rest.partition("[")
        return head, [value(base), value(index.rstrip()[:-1])]
    return head, values(rest)


def _type(text: str) -> Tuple[bool, str]:
    scalar = text.startswith("scalar ")
    return scalar, text[7:] if scalar else text


class _Reader:
    def __init__(self, text: str) -> None:
        self.lines = [ln.strip() for ln in text.split("\n")]
        self.pos = 0
        self.kinds: Dict[int, str] = {}

    def peek(self) -> Optional[str]:
        while self.pos < len(self.lines) and (not self.lines[self.pos] or self.lines[self.pos].startswith(";")):
            self.pos += 1
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def take(self) -> str:
        line = self.peek()
        if line is None:
            raise IrTextError(len(self.lines), "the text ends inside the function")
        self.pos += 1
        return line

    def fail(self, message: str) -> IrTextError:
        return IrTextError(self.pos, message)

    def define(self, line: str) -> Tuple[int, bool, str, str]:
        """``%n: type = rest``."""
        lhs, eq, rest = line.partition(" = ")
        name, colon, ty = lhs.partition(": ")
        if not (eq and colon):
            raise self.fail(f"expected `%n: type = ...`, found {line!r}")
        dst = value(name)
        scalar, kind = _type(ty)
        self.kinds[dst] = kind
        return dst, scalar, kind, rest

    def merges(self, head: str) -> List[Merge]:
        out = []
        while (line := self.peek()) is not None and f" = {head}(" in line:
            dst, _, kind, rest = self.define(self.take())
            first, second = values(rest[len(head) + 1 : -1])
            out.append(Merge(dst, kind, first, second))
        return out

    def block(self) -> list:
        out: list = []
        while (line := self.peek()) is not None and not line.startswith("}"):
            if line.startswith("raise if ") or line.startswith("return "):
                return out
            self.take()
            if line.startswith("for "):
                index, _, spec = line[4:-2].partition(" in ")
                if spec.startswith("range("):
                    items: Any = range(*[int(x) for x in spec[6:-1].split(",")])
                else:
                    items = const(spec)
                phis = self.merges("phi")
                out.append(Loop(value(index), items, phis, self.block()))
                self.close("}")
            elif line.startswith("while any("):
                active = value(line[len("while any(") : -3])
                phis = self.merges("phi")
                out.append(Loop(-1, None, phis, self.block(), active))
                self.close("}")
            elif line.startswith("if "):
                cond = value(line[3:-2])
                then = self.block()
                self.close("} else {")
                other = self.block()
                self.close("}")
                out.append(If(cond, then, other, self.merges("if_merge")))
            else:
                dst, scalar, kind, rest = self.define(line)
                head, args = op(rest)
                out.append(Let(dst, scalar, kind, head, args))
        return out

    def close(self, expected: str) -> None:
        line = self.take()
        if line != expected:
            raise self.fail(f"expected {expected!r}, found {line!r}")


def read(text: str) -> IrFunction:
    """The function the core printed (``src/ir/read.rs``'s grammar, version ``FORMAT_VERSION``)."""
    r = _Reader(text)
    first = r.lines[0] if r.lines else ""
    if not first.startswith(_HEADER):
        raise IrTextError(1, f"expected the header `{_HEADER}{FORMAT_VERSION}`, found {first!r}")
    if first[len(_HEADER) :] != str(FORMAT_VERSION):
        raise IrTextError(1, f"this text is in ir-format {first[len(_HEADER):]}; this reader reads {FORMAT_VERSION}")
    r.pos = 1
    head = r.take()
    if not (head.startswith("fn ") and head.endswith(") {")):
        raise r.fail(f"expected `fn name(params) {{`, found {head!r}")
    name, _, signature = head[3:-3].partition("(")
    declared, _, hidden = signature.partition("; ")
    params = [p.partition(":")[0].strip() for p in declared.split(",") if p.strip()]
    params += [p.strip() for p in hidden.split(",") if p.strip()]
    body = r.block()
    func = IrFunction(name, params, body, [], False, kinds=r.kinds)
    line = r.take()
    if line.startswith("raise if "):
        code, _, nan = line[len("raise if ") :].partition(" != 0")
        func.raise_code, func.nan_on_raise = value(code), nan == ", nan_on_raise"
        while (line := r.take()) and not line.startswith("return "):
            if line.startswith("from: "):
                func.sites[len(func.sites)].cause = unescape(line[6:])
                continue
            number, _, rest = line.partition(" (")
            bound, _, expr = rest.partition("): ")
            pairs = [b.partition(" = ") for b in bound.split(", ") if b]
            func.sites[int(number)] = Site(unescape(expr), [p[0] for p in pairs], [value(p[2]) for p in pairs])
    if not line.startswith("return "):
        raise r.fail(f"expected `return`, found {line!r}")
    ret = line[len("return ") :]
    # `return (v1, v2)`, or `return Point(v1, v2)`: a namedtuple class's hidden parameter.
    class_name, paren, rest = ret.partition("(")
    if paren and (not class_name or class_name.isidentifier()):
        func.tuple = True
        ret = rest[:-1].rstrip(",")
    func.ret = values(ret)
    r.close("}")
    return func
