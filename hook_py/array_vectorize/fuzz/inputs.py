"""Input columns for fuzzed programs: random values and edge values of each kind.

A parameter's kind is one of ``"f"`` (float64), ``"i"`` (int64), ``"u"`` (uint64) or ``"b"``
(bool). A column is a list of Python scalars (what CPython sees) plus, unless the parameter is
passed as a Python scalar, the NumPy array the vectorized function receives. A uniform parameter
(D14, kind ``"o"``) is one Python object passed to every call as it is (a dict, a string,
``None``, or an Enum member of the program, ``ModuleRef``, looked up in each module that runs it).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, List, Optional

FLOAT_EDGES = [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.0, 3.0, -3.0, 10.0, 100.0,
    5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072014e-308, 1e-300, 1.1102230246251565e-16,
    1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308, 9007199254740992.0, 9.223372036854776e18,
    -9.223372036854776e18, 1.8446744073709552e19, math.inf, -math.inf, math.nan,
]
INT_EDGES = [
    0, 1, -1, 2, -2, 3, -3, 7, -7, 10, 100, -100, 2**31 - 1, -(2**31), 2**53, 2**53 + 1, -(2**53) - 1,
    2**62, -(2**62), 2**63 - 1, -(2**63), -(2**63) + 1,
]
UINT_EDGES = [
    0, 1, 2, 3, 7, 10, 100, 2**32, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1,
]

KIND_DTYPES = {"f": "float64", "i": "int64", "u": "uint64", "b": "bool"}


@dataclass(frozen=True)
class ModuleRef:
    """An object of the program's module, ``CLASS.MEMBER`` (an Enum member): the oracle and the
    vectorized function each read it from their own module (``resolve``)."""

    cls: str
    member: str

    def __repr__(self) -> str:
        return f"{self.cls}.{self.member}"


def resolve(value: Any, namespace: dict) -> Any:
    if isinstance(value, ModuleRef):
        return getattr(namespace[value.cls], value.member)
    return value


@dataclass
class Column:
    kind: str
    values: List[Any]
    scalar: bool = False  # passed as one Python scalar (every lane sees values[0])


def random_value(kind: str, rng: random.Random, edge_rate: float) -> Any:
    if kind == "b":
        return rng.random() < 0.5
    if kind == "f":
        if rng.random() < edge_rate:
            return rng.choice(FLOAT_EDGES)
        r = rng.random()
        if r < 0.25:
            return float(rng.randint(-6, 6))  # equalities with ints and other floats
        if r < 0.35:
            return rng.randint(-12, 12) / 2.0  # ties for round()
        if r < 0.75:
            return rng.gauss(0.0, 3.0)
        if r < 0.9:
            return rng.uniform(-1e3, 1e3)
        return rng.choice([-1.0, 1.0]) * math.ldexp(rng.random() + 0.5, rng.randint(-1074, 1023))
    if kind == "i":
        if rng.random() < edge_rate:
            return rng.choice(INT_EDGES)
        r = rng.random()
        if r < 0.6:
            return rng.randint(-8, 8)
        if r < 0.9:
            return rng.randint(-1000, 1000)
        return rng.randint(-(2**40), 2**40)
    if kind == "u":
        if rng.random() < edge_rate:
            return rng.choice(UINT_EDGES)
        r = rng.random()
        if r < 0.6:
            return rng.randint(0, 10)
        if r < 0.85:
            return rng.randint(0, 1000)
        if r < 0.93:
            # Near the top of uint64 and around 2**63, where a negative intermediate meets a
            # lane the lattice holds as uint64 (issue 28 item 3).
            return rng.choice([2**64 - 1 - rng.randint(0, 1000), 2**63 + rng.randint(-1000, 1000)])
        return rng.randint(0, 2**64 - 1)
    raise ValueError(kind)


def make_columns(
    kinds: List[str], lanes: int, rng: random.Random, scalar_rate: float = 0.0, uniforms: Optional[dict] = None
) -> List[Column]:
    """One column per parameter. At least one parameter stays an array. ``uniforms`` maps the
    position of a uniform parameter (kind ``"o"``) to the objects a call may pass; one is
    picked, from a stream of its own (the numeric columns stay what they were)."""
    edge_rate = rng.choice([0.1, 0.25, 0.4])
    columns = []
    urng = random.Random(rng.random()) if uniforms else None
    for position, kind in enumerate(kinds):
        if kind == "o":
            columns.append(Column(kind, [urng.choice(uniforms[position])], True))
            continue
        scalar = rng.random() < scalar_rate
        n = 1 if scalar else lanes
        columns.append(Column(kind, [random_value(kind, rng, edge_rate) for _ in range(n)], scalar))
    if all(c.scalar for c in columns) and any(c.kind != "o" for c in columns):
        c = rng.choice([c for c in columns if c.kind != "o"])
        c.scalar = False
        c.values = [c.values[0]] + [random_value(c.kind, rng, edge_rate) for _ in range(lanes - 1)]
    # Lanes where two parameters of the same kind are equal (x == y, ties of min/max).
    arrays = [c for c in columns if not c.scalar]
    if len(arrays) >= 2:
        for lane in range(lanes):
            if rng.random() < 0.08:
                a, b = rng.sample(arrays, 2)
                if a.kind == b.kind:
                    b.values[lane] = a.values[lane]
    return columns


def lane_count(columns: List[Column]) -> int:
    return max(len(c.values) for c in columns)


def lane_args(columns: List[Column], lane: int) -> List[Any]:
    return [c.values[0] if c.scalar else c.values[lane] for c in columns]


def to_numpy(column: Column, np: Any) -> Any:
    if column.scalar:
        return column.values[0]
    return np.array(column.values, dtype=KIND_DTYPES[column.kind])


def select_lanes(columns: List[Column], lanes: List[int]) -> List[Column]:
    return [Column(c.kind, list(c.values) if c.scalar else [c.values[i] for i in lanes], c.scalar) for c in columns]


def describe_value(v: Any) -> str:
    if isinstance(v, BaseException):
        return f"raises {type(v).__name__}{v.args!r}"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else f"float('{v}')"
    return repr(v)


def describe_args(names: List[str], columns: List[Column], lane: Optional[int]) -> str:
    parts = []
    for name, c in zip(names, columns):
        v = c.values[0] if (c.scalar or lane is None) else c.values[lane]
        dtype = "uniform" if c.kind == "o" else "python " + type(v).__name__ if c.scalar else KIND_DTYPES[c.kind]
        parts.append(f"{name}={describe_value(v)} ({dtype})")
    return ", ".join(parts)
