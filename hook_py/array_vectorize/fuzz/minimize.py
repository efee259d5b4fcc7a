"""Shrinks a failing program while it keeps failing the same way.

``minimize(source, columns, still_fails)`` first keeps only the failing element (or the fewest
elements that still fail), then repeatedly tries smaller programs: drop a statement, replace an
``if`` by one of its branches, run a loop once, replace an expression by one of its operands or
by a constant, drop unused globals, helpers and parameters, and simplify the input values.
A candidate is kept only when ``wellformed.problems`` finds nothing (the reproducer stays a
valid program of the supported language) and ``still_fails(source, columns)`` holds.
"""

from __future__ import annotations

import ast
import copy
import time
from typing import Any, Callable, Iterator, List, Optional, Tuple

from .inputs import Column, select_lanes
from .wellformed import problems

Predicate = Callable[[str, List[Column]], bool]

SIMPLE_VALUES = {
    "f": [0.0, 1.0, -1.0, 2.0, 0.5],
    "i": [0, 1, -1, 2],
    "u": [0, 1, 2],
    "b": [False, True],
}


def minimize(
    source: str,
    columns: List[Column],
    still_fails: Predicate,
    lanes: Optional[List[int]] = None,
    entry: str = "f",
    time_budget: float = 30.0,
) -> Tuple[str, List[Column]]:
    deadline = time.monotonic() + time_budget
    seen = set()

    def attempt(src: str, cols: List[Column]) -> bool:
        key = (src, tuple((c.kind, c.scalar, tuple(map(repr, c.values))) for c in cols))
        if key in seen or time.monotonic() > deadline:
            return False
        seen.add(key)
        try:
            return still_fails(src, cols)
        except Exception:  # noqa: BLE001 - a candidate that breaks the checker is not kept
            return False

    # 1. Inputs: the failing element alone, else halves.
    for lane in lanes or []:
        single = select_lanes(columns, [lane])
        if attempt(source, single):
            columns = single
            break
    else:
        columns = _shrink_lanes(source, columns, attempt)

    # 2. The program.
    tree = ast.parse(source)
    current = ast.unparse(tree) + "\n"
    if current != source and problems(ast.parse(current), entry) is None and attempt(current, columns):
        source = current
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for candidate in _candidates(ast.parse(source), entry):
            if time.monotonic() > deadline:
                break
            try:
                text = ast.unparse(candidate) + "\n"
            except ValueError:  # a constant of an f-string replaced by a non-string
                continue
            if text == source or problems(candidate, entry) is not None:
                continue
            if attempt(text, columns):
                source = text
                progress = True
                break
        if not progress:
            # Unused parameters, then simpler input values.
            reduced = _drop_parameter(source, columns, entry, attempt)
            if reduced:
                source, columns = reduced
                progress = True
                continue
            simpler = _simplify_values(source, columns, attempt)
            if simpler is not None:
                columns = simpler
                progress = True
    return source, columns


def _shrink_lanes(source: str, columns: List[Column], attempt) -> List[Column]:
    n = max(len(c.values) for c in columns)
    lanes = list(range(n))
    chunk = len(lanes) // 2
    while chunk >= 1 and len(lanes) > 1:
        shrunk = False
        for start in range(0, len(lanes), chunk):
            keep = lanes[:start] + lanes[start + chunk:]
            if keep and attempt(source, select_lanes(columns, keep)):
                lanes = keep
                shrunk = True
                break
        if not shrunk:
            chunk //= 2
    return select_lanes(columns, lanes) if len(lanes) < n else columns


def _drop_parameter(source: str, columns: List[Column], entry: str, attempt):
    tree = ast.parse(source)
    fn = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == entry)
    used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for i, a in enumerate(fn.args.args):
        if a.arg in used or len(fn.args.args) == 1:
            continue
        new = copy.deepcopy(tree)
        nfn = next(s for s in new.body if isinstance(s, ast.FunctionDef) and s.name == entry)
        del nfn.args.args[i]
        cols = columns[:i] + columns[i + 1:]
        if all(c.scalar for c in cols):
            continue
        text = ast.unparse(new) + "\n"
        if problems(new, entry) is None and attempt(text, cols):
            return text, cols
    return None


def _simplify_values(source: str, columns: List[Column], attempt) -> Optional[List[Column]]:
    for ci, c in enumerate(columns):
        for vi, v in enumerate(c.values):
            for simple in SIMPLE_VALUES.get(c.kind, ()):  # (none for a uniform value)
                if type(simple) is type(v) and simple == v and repr(simple) == repr(v):
                    break
                if _simpler(v, simple):
                    new = [Column(x.kind, list(x.values), x.scalar) for x in columns]
                    new[ci].values[vi] = simple
                    if attempt(source, new):
                        return new
    return None


def _simpler(v: Any, simple: Any) -> bool:
    try:
        return abs(simple) < abs(v) or (abs(simple) == abs(v) and simple > v)
    except TypeError:
        return False


# ------------------------------------------------------------------ program candidates


def _candidates(tree: ast.Module, entry: str) -> Iterator[ast.Module]:
    yield from _drop_module_items(tree, entry)
    yield from _statement_edits(tree)
    yield from _expression_edits(tree)


def _drop_module_items(tree: ast.Module, entry: str) -> Iterator[ast.Module]:
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.FunctionDef) and stmt.name == entry:
            continue
        new = copy.deepcopy(tree)
        del new.body[i]
        yield new


def _blocks(tree: ast.AST) -> List[Tuple[ast.AST, str]]:
    """(node, field) of every statement list inside functions."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.If, ast.For)):
            out.append((node, "body"))
            if isinstance(node, ast.If) and node.orelse:
                out.append((node, "orelse"))
    return out


def _statement_edits(tree: ast.Module) -> Iterator[ast.Module]:
    blocks = _blocks(tree)
    for bi in range(len(blocks)):
        node, fieldname = blocks[bi]
        stmts = getattr(node, fieldname)
        for si in range(len(stmts)):
            stmt = stmts[si]
            # Drop the statement.
            yield _edit_block(tree, bi, lambda body, si=si: body[:si] + body[si + 1:] or [ast.Pass()])
            if isinstance(stmt, ast.If):
                yield _edit_block(tree, bi, lambda body, si=si: body[:si] + body[si].body + body[si + 1:])
                yield _edit_block(tree, bi, lambda body, si=si: body[:si] + body[si].body)
                if stmt.orelse:
                    yield _edit_block(tree, bi, lambda body, si=si: body[:si] + body[si].orelse + body[si + 1:])
                    yield _edit_block(tree, bi, lambda body, si=si: body[:si] + body[si].orelse)
                    yield _edit_block(tree, bi, lambda body, si=si: body[:si] + [_without_else(body[si])] + body[si + 1:])
            elif isinstance(stmt, ast.For):
                first = _first_value(stmt)
                if first is not None:
                    yield _edit_block(
                        tree, bi,
                        lambda body, si=si, first=first: body[:si]
                        + [ast.Assign(targets=[ast.Name(body[si].target.id, ast.Store())], value=ast.Constant(first), lineno=0)]
                        + body[si].body + body[si + 1:],
                    )
                    if isinstance(stmt.iter, ast.Call) and len(list(range(*[ast.literal_eval(a) for a in stmt.iter.args]))) > 1:
                        yield _edit_block(tree, bi, lambda body, si=si, first=first: body[:si] + [_one_iteration(body[si], first)] + body[si + 1:])


def _without_else(stmt: ast.If) -> ast.If:
    new = copy.copy(stmt)
    new.orelse = []
    return new


def _one_iteration(stmt: ast.For, first: Any) -> ast.For:
    new = copy.copy(stmt)
    new.iter = ast.Call(func=ast.Name("range", ast.Load()), args=[ast.Constant(first), ast.Constant(first + 1)], keywords=[])
    return new


def _first_value(stmt: ast.For) -> Optional[Any]:
    it = stmt.iter
    try:
        if isinstance(it, ast.Call):
            values = list(range(*[ast.literal_eval(a) for a in it.args]))
            return values[0] if values else None
    except (ValueError, TypeError):
        return None
    return None


def _edit_block(tree: ast.Module, block_index: int, edit: Callable[[List[ast.stmt]], List[ast.stmt]]) -> ast.Module:
    new = copy.deepcopy(tree)
    node, fieldname = _blocks(new)[block_index]
    setattr(node, fieldname, edit(getattr(node, fieldname)))
    return new


def _expr_sites(tree: ast.AST) -> List[Tuple[ast.AST, str, Optional[int]]]:
    """(parent, field, index) of every replaceable expression, outermost first."""
    sites: List[Tuple[ast.AST, str, Optional[int]]] = []
    for parent in ast.walk(tree):
        if isinstance(parent, (ast.Subscript, ast.Attribute)):
            continue
        for name, value in ast.iter_fields(parent):
            if name in ("func", "target", "targets", "ctx", "iter", "slice", "args") and not (
                name == "args" and isinstance(parent, ast.Call)
            ):
                continue
            if isinstance(value, ast.expr):
                sites.append((parent, name, None))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.expr) or isinstance(item, ast.keyword):
                        sites.append((parent, name, i))
    return sites


def _get(parent: ast.AST, name: str, idx: Optional[int]) -> ast.AST:
    v = getattr(parent, name)
    if idx is not None:
        v = v[idx]
        if isinstance(v, ast.keyword):
            v = v.value
    return v


def _set(parent: ast.AST, name: str, idx: Optional[int], new: ast.expr) -> None:
    if idx is None:
        setattr(parent, name, new)
        return
    seq = getattr(parent, name)
    if isinstance(seq[idx], ast.keyword):
        seq[idx].value = new
    else:
        seq[idx] = new


def _replacements(node: ast.expr) -> List[ast.expr]:
    out: List[ast.expr] = []
    if isinstance(node, ast.BinOp):
        out += [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        out.append(node.operand)
    elif isinstance(node, ast.BoolOp):
        out += list(node.values)
        if len(node.values) > 2:
            for i in range(len(node.values)):
                out.append(ast.BoolOp(node.op, node.values[:i] + node.values[i + 1:]))
    elif isinstance(node, ast.Compare):
        out += [node.left] + list(node.comparators)
        if len(node.ops) > 1:
            for i in range(len(node.ops)):
                out.append(ast.Compare(node.left if i else node.comparators[0], [node.ops[0]] if i else node.ops[1:2], [node.comparators[0]] if i else node.comparators[1:2]))
    elif isinstance(node, ast.IfExp):
        out += [node.body, node.orelse, node.test]
    elif isinstance(node, ast.Call):
        out += list(node.args) + [k.value for k in node.keywords]
    elif isinstance(node, ast.Subscript):
        pass
    if not isinstance(node, ast.Constant):
        out += [ast.Constant(0), ast.Constant(1.0), ast.Constant(True), ast.Constant(0.0)]
    elif node.value not in (0, 1) or type(node.value) is not int:
        out += [ast.Constant(0), ast.Constant(1)]
    return out


def _expression_edits(tree: ast.Module) -> Iterator[ast.Module]:
    sites = _expr_sites(tree)
    for si in range(len(sites)):
        parent, name, idx = sites[si]
        node = _get(parent, name, idx)
        if not isinstance(node, ast.expr):
            continue
        for rep_index in range(len(_replacements(node))):
            new = copy.deepcopy(tree)
            nparent, nname, nidx = _expr_sites(new)[si]
            nnode = _get(nparent, nname, nidx)
            reps = _replacements(nnode)
            if rep_index >= len(reps):
                continue
            _set(nparent, nname, nidx, copy.deepcopy(reps[rep_index]))
            yield new
