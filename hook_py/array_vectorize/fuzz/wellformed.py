"""Static well-formedness of a fuzzed program (module AST), independent of the generator.

The minimizer edits programs freely and keeps a candidate only when ``problems(module)`` is
empty, so a reproducer is always a program of the supported language that CPython runs without
``NameError``/``UnboundLocalError``:

* module level: ``import math``, ``from math import ...``, ``NAME = constant | tuple | lambda``,
  ``def``;
* every path of every function returns;
* every name read is defined on every path reaching the read (parameters, earlier assignments,
  loop variables inside their loop, and after a loop over a non-empty range what its body
  assigns on every path that completes the iteration);
* the test of each ``if``/``elif`` is any supported expression: a number means its truth value
  per element (D4);
* calls go to ``math`` functions, the supported builtins, or helpers/lambdas with exactly their
  parameters; a helper whose returns are all tuples of one length (D13) is only called as the
  right side of an unpacking into as many names, and the entry function returns numbers;
* a walrus appears only as the left operand of a comparison that is an ``if`` test;
* names read by a local lambda or nested ``def`` from the enclosing function are never assigned
  in it (the compiler freezes them, CPython reads them late);
* the D11, D14, D16 and D17 constructs in the forms ``wellformed_ext.py`` lists.

This module holds the module-level checks, ``Scope``'s statement walk (which names are defined
where, the kinds of variables, ``return``/``break``/``continue``, loops) and the analyses
``check.py`` uses (``returns_bool``, and ``patterns``, the shapes of control flow it classifies
failures by); the rules for expressions and calls are ``Scope``'s mixin in
``wellformed_expressions.py`` (with ``Invalid``).
"""

from __future__ import annotations

import ast
import math
from typing import Dict, List, Optional, Set

from . import wellformed_containers, wellformed_ext, wellformed_recursion
from .grammar_names import unalias_math
from .wellformed_expressions import ALLOWED_BINOPS, MATH_ARITY, ExpressionRules, Invalid

BOOL_MATH = ("isnan", "isinf", "isfinite")

BOOL, NUM, SCALAR = "bool", "num", "scalar"


class ModuleInfo:
    def __init__(self) -> None:
        self.consts: Dict[str, object] = {}
        self.tuples: Dict[str, tuple] = {}
        self.tables: Dict[str, int] = {}  # list and dict globals indexed by `int(x) % size` (D15)
        self.callables: Dict[str, List[str]] = {}
        self.arities: Dict[str, int] = {}  # helper -> length of the tuples it returns (D13)
        self.math_names: Set[str] = set()
        self.has_math = False
        self.has_numpy = False
        self.has_enum = False  # `import enum`, which a `class Mode(enum.Enum)` needs
        # NumPy's spellings (grammar_names.py): the module's aliases, and names bound to its members.
        self.numpy_modules: Set[str] = set()
        self.numpy_names: Dict[str, str] = {}
        self.exceptions: Set[str] = set()  # exception classes of the module
        self.enums: Dict[str, Set[str]] = {}  # Enum classes of the module -> member names
        self.checkers: Dict[str, int] = {}  # functions of raises/asserts only -> parameter count
        self.messages: Set[str] = set()  # module-level message strings (D21)


def problems(module: ast.Module, entry: str = "f") -> Optional[str]:
    """``None`` when the program is well-formed, else the first problem found."""
    try:
        check_module(unalias_math(module), entry)
    except Invalid as exc:
        return str(exc)
    return None


def check_module(module: ast.Module, entry: str) -> None:
    info = ModuleInfo()
    functions = []
    # A function may call any function of the module, itself included (D19).
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef) and any(isinstance(n, ast.Return) for n in ast.walk(stmt)):
            info.callables[stmt.name] = [a.arg for a in stmt.args.args]
    for stmt in module.body:
        if wellformed_recursion.module_stmt(info, stmt) or wellformed_ext.module_stmt(info, stmt):
            continue
        if isinstance(stmt, ast.FunctionDef) and not any(isinstance(n, ast.Return) for n in ast.walk(stmt)):
            checking_function(info, stmt)
            continue
        if isinstance(stmt, ast.ClassDef):
            class_tables(info, stmt)
            continue
        if isinstance(stmt, ast.Import):
            if [a.name for a in stmt.names] != ["math"] or stmt.names[0].asname:
                raise Invalid("only `import math`")
            info.has_math = True
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.module != "math" or stmt.level:
                raise Invalid("only `from math import`")
            for a in stmt.names:
                if a.asname or a.name not in MATH_ARITY:
                    raise Invalid(f"unexpected math import {a.name}")
                info.math_names.add(a.name)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            value = stmt.value
            if isinstance(value, ast.Lambda):
                scope = Scope(info, set(), {})
                params = lambda_params(value)
                scope.defined = set(params)
                scope.kinds = {p: NUM for p in params}
                scope.expr(value.body)
                info.callables[name] = params
            else:
                try:
                    const = ast.literal_eval(value)
                except ValueError:
                    raise Invalid(f"global {name} is not a constant") from None
                if isinstance(const, tuple):
                    if not const or not all(type(c) in (bool, int, float) for c in const):
                        raise Invalid(f"tuple {name}")
                    info.tuples[name] = const
                elif isinstance(const, (list, dict)):
                    keys = list(const) if isinstance(const, dict) else list(range(len(const)))
                    if not const or keys != list(range(len(const))):
                        raise Invalid(f"table {name}")
                    info.tables[name] = len(const)
                elif type(const) in (bool, int, float):
                    info.consts[name] = const
                else:
                    raise Invalid(f"global {name} is not a number")
        elif isinstance(stmt, ast.FunctionDef):
            check_function(stmt, info, {}, set())
            info.callables[stmt.name] = [a.arg for a in stmt.args.args]
            arity = return_arity(stmt)
            if arity > 1:
                if stmt.name == entry:
                    raise Invalid("the entry function returns a tuple")
                info.arities[stmt.name] = arity
            functions.append(stmt.name)
        else:
            raise Invalid(f"unexpected module statement {type(stmt).__name__}")
    if entry not in functions:
        raise Invalid(f"no function {entry}")
    wellformed_recursion.recursion(module)


def return_arity(fn: ast.FunctionDef) -> int:
    """How many values every ``return`` of ``fn`` gives (1 for a number)."""
    arities = {
        len(node.value.elts) if isinstance(node.value, ast.Tuple) else 1
        for node in ast.walk(fn) if isinstance(node, ast.Return) and node.value is not None
    }
    if len(arities) > 1:
        raise Invalid(f"{fn.name}: returns of different lengths")
    if any(isinstance(n, ast.For) and any(isinstance(r, ast.Return) for r in ast.walk(n)) for n in ast.walk(fn)) and arities != {1}:
        raise Invalid(f"{fn.name}: a tuple returned from inside a loop")
    return arities.pop() if arities else 1


def lambda_params(node: ast.Lambda) -> List[str]:
    a = node.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        raise Invalid("lambda signature")
    return [x.arg for x in a.args]


def checking_function(info: ModuleInfo, node: ast.FunctionDef) -> None:
    """``check(...)`` (D11, ``grammar_raise.py``): a module-level function of raises and asserts
    only, which returns nothing and is called only as a statement."""
    params = function_params(node)
    scope = Scope(info, set(params), {p: "num" for p in params})
    for s in node.body:
        if not isinstance(s, (ast.If, ast.Assert, ast.Raise)):
            raise Invalid("a checking function holds raises and asserts only")
        scope.stmt(s)
    info.checkers[node.name] = len(params)


def function_params(node: ast.FunctionDef) -> List[str]:
    a = node.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs or node.decorator_list or node.returns:
        raise Invalid("function signature")
    if not all(wellformed_ext.annotation_ok(x) for x in a.args) or not wellformed_ext.uniforms_marked(node):
        raise Invalid("annotation")
    return [x.arg for x in a.args]


def assigned_names(body: List[ast.stmt]) -> Set[str]:
    out: Set[str] = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
            elif isinstance(node, ast.NamedExpr):
                out.add(node.target.id)
    return out


def check_function(fn: ast.FunctionDef, info: ModuleInfo, outer: Dict[str, str], outer_defined: Set[str]) -> None:
    params = function_params(fn)
    # CPython evaluates an annotation at the `def` (seed 690001 #1508 minimized to `mode: Mode`
    # with no class Mode: a NameError).
    if any(a.annotation is not None and ast.unparse(a.annotation) == "Mode" and "Mode" not in info.enums for a in fn.args.args):
        raise Invalid("annotation `Mode` without its class")
    if not fn.body:
        raise Invalid("empty function")
    scope = Scope(info, set(params) | outer_defined, dict(outer))
    for p in params:
        scope.kinds[p] = NUM
    scope.infer_var_kinds(fn.body)
    frozen = scope.closure_reads(fn.body)
    bad = frozen & assigned_names(fn.body)
    if bad:
        raise Invalid(f"closure reads reassigned names {sorted(bad)}")
    falls = scope.block(fn.body)
    if falls:
        raise Invalid(f"{fn.name}: a path falls off the end")


class Scope(ExpressionRules):
    def __init__(self, info: ModuleInfo, defined: Set[str], kinds: Dict[str, str]) -> None:
        self.info = info
        self.defined = set(defined)
        self.kinds: Dict[str, str] = dict(kinds)  # name -> BOOL / NUM / SCALAR (flow-insensitive)
        self.indices: Dict[str, List[int]] = {}  # loop index -> possible values (while in scope)
        self.locals_callables: Dict[str, List[str]] = {}
        self.loops = 0  # enclosing loops (``break``/``continue`` need one)
        self.containers: Dict[str, int] = {}  # local list, tuple or dict -> length (D18)
        self.maybe: Set[str] = set()  # names some earlier path assigned (D20)

    # -------------------------------------------------------------- kinds
    def infer_var_kinds(self, body: List[ast.stmt]) -> None:
        """A variable is BOOL when every assignment to it is boolean (fixpoint over the body)."""
        assigns: List[tuple] = []
        loop_vars: Set[str] = set()
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Assign):
                    t = node.targets[0] if len(node.targets) == 1 else None
                    if isinstance(t, ast.Name):
                        assigns.append((t.id, node.value))
                    elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(t.elts) == len(node.value.elts):
                        for a, b in zip(t.elts, node.value.elts):
                            if isinstance(a, ast.Name):
                                assigns.append((a.id, b))
                    elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Call):
                        assigns.extend((a.id, None) for a in t.elts if isinstance(a, ast.Name))
                    elif not isinstance(t, ast.Subscript):  # an item of a container (D18)
                        raise Invalid("assignment target")
                elif isinstance(node, ast.AugAssign):
                    assigns.append((getattr(node.target, "id", None), None))
                elif isinstance(node, ast.NamedExpr):
                    assigns.append((node.target.id, node.value))
                elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                    loop_vars.add(node.target.id)
                elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                    pass
        names = {n for n, _ in assigns if n}
        for n in names:
            if self.kinds.get(n) is None:
                self.kinds[n] = BOOL
        for n in loop_vars:
            self.kinds[n] = SCALAR
        for _ in range(len(names) + 2):
            changed = False
            for n, value in assigns:
                if n is None or n in loop_vars:
                    continue
                k = NUM if value is None else self.kind_of(value)
                if k != BOOL and self.kinds.get(n) == BOOL:
                    self.kinds[n] = NUM
                    changed = True
            if not changed:
                break
        for n in names:
            if self.kinds.get(n) == SCALAR and n not in loop_vars:
                self.kinds[n] = NUM

    def kind_of(self, node: ast.expr) -> str:
        """BOOL / SCALAR / NUM of an expression, without checking it."""
        if isinstance(node, ast.Compare):
            return BOOL
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return BOOL
            return SCALAR if self.kind_of(node.operand) == SCALAR else NUM
        if isinstance(node, ast.BoolOp):
            kinds = {self.kind_of(v) for v in node.values}
            return kinds.pop() if len(kinds) == 1 else NUM
        if isinstance(node, ast.IfExp):
            a, b = self.kind_of(node.body), self.kind_of(node.orelse)
            if a == b == BOOL:
                return BOOL
            if a == b == SCALAR and self.kind_of(node.test) in (SCALAR,):
                return SCALAR
            return NUM
        if isinstance(node, ast.Constant):
            return BOOL if isinstance(node.value, bool) else SCALAR
        if isinstance(node, ast.Name):
            if node.id in self.info.consts and node.id not in self.kinds:
                return BOOL if isinstance(self.info.consts[node.id], bool) else SCALAR
            return self.kinds.get(node.id, NUM)
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if isinstance(f, ast.Name) and name == "bool":
                return BOOL
            if name in BOOL_MATH and (isinstance(f, ast.Attribute) or name in self.info.math_names):
                return BOOL
            return NUM
        if isinstance(node, ast.Subscript):
            return SCALAR if self.kind_of(node.slice) == SCALAR else NUM
        if isinstance(node, ast.BinOp):
            return SCALAR if self.kind_of(node.left) == SCALAR and self.kind_of(node.right) == SCALAR else NUM
        if isinstance(node, ast.Attribute):
            return SCALAR
        if isinstance(node, ast.NamedExpr):
            return self.kind_of(node.value)
        return NUM

    def closure_reads(self, body: List[ast.stmt]) -> Set[str]:
        """Names of the enclosing function read by its lambdas and nested defs."""
        reads: Set[str] = set()
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, (ast.Lambda, ast.FunctionDef)):
                    own = set(lambda_params(node) if isinstance(node, ast.Lambda) else function_params(node))
                    inner_body = [node.body] if isinstance(node, ast.Lambda) else node.body
                    if isinstance(node, ast.FunctionDef):
                        own |= assigned_names(node.body)
                    for sub in inner_body:
                        for n in ast.walk(sub):
                            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own:
                                reads.add(n.id)
        return reads

    # -------------------------------------------------------------- statements
    def block(self, body: List[ast.stmt]) -> bool:
        """Checks statements; updates ``defined``; whether control can fall through."""
        if not body:
            raise Invalid("empty block")
        for i, stmt in enumerate(body):
            if not self.stmt(stmt):
                if i != len(body) - 1:
                    raise Invalid("unreachable statements after return")
                return False
        return True

    def stmt(self, stmt: ast.stmt) -> bool:
        # D20: what this statement assigns on some path may be read after it (unbound elsewhere).
        self.maybe |= assigned_names([stmt])
        falls = wellformed_containers.stmt(self, stmt)
        if falls is not None:
            return falls
        if isinstance(stmt, ast.Return):
            if stmt.value is None:
                raise Invalid("bare return")
            if isinstance(stmt.value, ast.Tuple):
                if len(stmt.value.elts) < 2:
                    raise Invalid("returned tuple")
                for e in stmt.value.elts:
                    self.expr(e)
            else:
                self.expr(stmt.value)
            return False
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                raise Invalid("chained assignment")
            target = stmt.targets[0]
            if isinstance(stmt.value, ast.Lambda):
                if not isinstance(target, ast.Name):
                    raise Invalid("lambda target")
                params = lambda_params(stmt.value)
                inner = self.nested(params)
                inner.expr(stmt.value.body)
                self.locals_callables[target.id] = params
                self.defined.add(target.id)
                self.kinds[target.id] = "callable"
                return True
            unpacks_call = isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Call)
            if isinstance(stmt.value, ast.Tuple) and isinstance(target, ast.Tuple):
                for e in stmt.value.elts:
                    self.expr(e)
            elif unpacks_call:
                self.call(stmt.value, arity=len(target.elts))
            else:
                self.expr(stmt.value)
            if isinstance(target, ast.Name):
                self.store(target.id)
            elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
                if not unpacks_call and (not isinstance(stmt.value, ast.Tuple) or len(stmt.value.elts) != len(target.elts)):
                    raise Invalid("tuple assignment needs a tuple of the same length")
                for e in target.elts:
                    self.store(e.id)
            else:
                raise Invalid("assignment target")
            return True
        if isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.target, ast.Name) or stmt.target.id not in self.defined:
                raise Invalid("augmented assignment of an undefined name")
            if not isinstance(stmt.op, ALLOWED_BINOPS):
                raise Invalid("operator")
            self.read(stmt.target.id)
            self.expr(stmt.value)
            return True
        if isinstance(stmt, ast.If):
            self.condition(stmt.test)
            saved = set(self.defined)
            falls_then = self.block(stmt.body)
            after_then = self.defined
            self.defined = set(saved)
            falls_else = self.block(stmt.orelse) if stmt.orelse else True
            after_else = self.defined
            if falls_then and falls_else:
                self.defined = after_then & after_else
            elif falls_then:
                self.defined = after_then
            elif falls_else:
                self.defined = after_else
            else:
                return False
            return True
        if isinstance(stmt, ast.For):
            return self.for_stmt(stmt)
        if isinstance(stmt, ast.While):
            return self.while_stmt(stmt)
        if isinstance(stmt, (ast.Break, ast.Continue)):
            if not self.loops:
                raise Invalid("break/continue outside a loop")
            return False
        if isinstance(stmt, ast.FunctionDef):
            params = function_params(stmt)
            check_function(stmt, self.info, {**self.kinds, **{p: NUM for p in params}}, self.defined - set(params))
            self.locals_callables[stmt.name] = params
            self.defined.add(stmt.name)
            self.kinds[stmt.name] = "callable"
            return True
        if isinstance(stmt, ast.Pass):
            return True
        falls = wellformed_ext.stmt(self, stmt)
        if falls is not None:
            return falls
        raise Invalid(f"unsupported statement {type(stmt).__name__}")

    def store(self, name: str) -> None:
        if name in self.info.callables or name in self.locals_callables or name == "math":
            raise Invalid(f"assignment shadows {name}")
        if self.kinds.get(name) == SCALAR:
            raise Invalid(f"assignment to loop variable {name}")
        self.defined.add(name)

    def for_stmt(self, stmt: ast.For) -> bool:
        if stmt.orelse or not isinstance(stmt.target, ast.Name):
            raise Invalid("for form")
        it = stmt.iter
        name = stmt.target.id
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords:
            try:
                args = [ast.literal_eval(a) for a in it.args]
            except ValueError:
                raise Invalid("range bounds must be constants") from None
            if not 1 <= len(args) <= 3 or not all(type(a) is int for a in args) or (len(args) == 3 and args[2] == 0):
                raise Invalid("range arguments")
            values = list(range(*args))
            if len(values) > 64:
                raise Invalid("range too long")
        elif isinstance(it, ast.Name) and it.id in self.info.tuples:
            values = list(self.info.tuples[it.id])
        else:
            raise Invalid("loop iterable")
        if name in self.indices or name in self.defined and self.kinds.get(name) != SCALAR:
            raise Invalid("loop variable reuses a name")
        before = set(self.defined)
        self.defined.add(name)
        self.indices[name] = [v for v in values if type(v) is int] if values else [0]
        self.loops += 1
        falls = self.block(stmt.body)
        self.loops -= 1
        end = self.defined
        del self.indices[name]
        if has_exit(stmt.body):
            # A lane may leave before assigning what the body assigns; the index is per lane.
            self.defined = before | {name} if values else before
            return True
        if values:
            if not falls:
                return False
            self.defined = end
            self.indices[name] = [values[-1]] if type(values[-1]) is int else []
        else:
            self.defined = before
        return True

    def while_stmt(self, stmt: ast.While) -> bool:
        """A ``while`` of the generator's terminating form: ``w < N [and cond]`` (or ``True``
        with ``if w > N: break`` second), ``w += 1`` first in the body, ``w`` assigned nowhere
        else; the minimizer may only drop the rest."""
        if stmt.orelse:
            raise Invalid("while form")
        test = stmt.test
        forever = isinstance(test, ast.Constant) and test.value is True
        rest = None
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and len(test.values) == 2:
            test, rest = test.values
        body = stmt.body
        first = body[0] if body else None
        if not (isinstance(first, ast.AugAssign) and isinstance(first.op, ast.Add) and isinstance(first.target, ast.Name)
                and isinstance(first.value, ast.Constant) and first.value.value == 1):
            raise Invalid("while form")
        w = first.target.id
        if forever:
            guard = body[1] if len(body) > 1 else None
            if not (isinstance(guard, ast.If) and not guard.orelse and len(guard.body) == 1
                    and isinstance(guard.body[0], ast.Break) and _bound_test(guard.test, w, ast.Gt)):
                raise Invalid("while form")
        elif not _bound_test(test, w, ast.Lt):
            raise Invalid("while form")
        for node in ast.walk(stmt):
            if node is not first and isinstance(node, (ast.Assign, ast.AugAssign, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(n, ast.Name) and n.id == w for t in targets for n in ast.walk(t)):
                    raise Invalid("while counter assigned")
        if w not in self.defined:
            raise Invalid("while counter undefined")
        if rest is not None:
            self.condition(rest)
        before = set(self.defined)
        self.loops += 1
        self.block(body)
        self.loops -= 1
        self.defined = before
        return True

    def nested(self, params: List[str]) -> "Scope":
        inner = Scope(self.info, (self.defined - set(params)) | set(params), dict(self.kinds))
        for p in params:
            inner.kinds[p] = NUM
        inner.indices = {}
        inner.locals_callables = dict(self.locals_callables)
        return inner


def is_finite_const(v: object) -> bool:
    return not isinstance(v, float) or math.isfinite(v)


def module_info(module: ast.Module) -> ModuleInfo:
    """Globals of a (well-formed) module, without checking it."""
    info = ModuleInfo()
    for stmt in module.body:
        if isinstance(stmt, ast.Import):
            info.has_math = True
        elif isinstance(stmt, ast.ImportFrom):
            info.math_names.update(a.name for a in stmt.names)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if isinstance(stmt.value, ast.Lambda):
                info.callables[name] = [a.arg for a in stmt.value.args.args]
            else:
                value = ast.literal_eval(stmt.value)
                if isinstance(value, tuple):
                    info.tuples[name] = value
                elif isinstance(value, (list, dict)):
                    info.tables[name] = len(value)
                else:
                    info.consts[name] = value
        elif isinstance(stmt, ast.FunctionDef):
            info.callables[stmt.name] = [a.arg for a in stmt.args.args]
        elif isinstance(stmt, ast.ClassDef) and stmt.name == "Tab":
            class_tables(info, stmt)
    return info


def class_tables(info: "ModuleInfo", stmt: ast.ClassDef) -> None:
    """`class Tab:` whose body binds tables to module tables (`S0 = S0`): `Tab.S0` is a table
    of the same size (issue 27, D15)."""
    if stmt.name != "Tab" or stmt.bases or stmt.keywords or stmt.decorator_list:
        raise Invalid("only `class Tab:` of tables")
    for s in stmt.body:
        if not (
            isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and isinstance(s.value, ast.Name)
            and s.value.id in info.tables
        ):
            raise Invalid("class Tab binds module tables only")
        info.tables[f"Tab.{s.targets[0].id}"] = info.tables[s.value.id]


def has_exit(body: List[ast.stmt]) -> bool:
    """Whether ``body`` breaks or continues the loop it is the body of (not a nested loop)."""
    for stmt in body:
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, ast.If) and (has_exit(stmt.body) or has_exit(stmt.orelse)):
            return True
    return False


def _bound_test(test: ast.expr, w: str, op: type) -> bool:
    """Whether ``test`` is ``w <op> N`` with ``N`` an int literal."""
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == w
            and len(test.ops) == 1 and isinstance(test.ops[0], op) and isinstance(test.comparators[0], ast.Constant)
            and type(test.comparators[0].value) is int)


def returns_bool(module: ast.Module, entry: str = "f") -> bool:
    """Whether every ``return`` of ``entry`` is boolean to the compiler (the result must then be a
    bool array)."""
    fn = next(s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == entry)
    scope = Scope(module_info(module), {a.arg for a in fn.args.args}, {a.arg: NUM for a in fn.args.args})
    scope.infer_var_kinds(fn.body)
    returns: List[ast.Return] = []

    def collect(body: List[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Return):
                returns.append(stmt)
            elif isinstance(stmt, (ast.If, ast.For, ast.While)):
                collect(stmt.body)
                collect(stmt.orelse)

    collect(fn.body)
    return bool(returns) and all(scope.kind_of(r.value) == BOOL for r in returns)


def _scalar_expr(node: ast.expr, scalars: Set[str]) -> bool:
    """Whether ``node`` is a Python scalar to the compiler: only literals, module constants and
    tuples, ``math`` constants, loop variables and locals only ever assigned such values (a
    ternary on a literal condition counts as the branch it takes)."""
    if isinstance(node, ast.IfExp) and not any(isinstance(n, (ast.Name, ast.Call)) for n in ast.walk(node.test)):
        try:  # a condition of literals only: the compiler folds it
            taken = bool(eval(compile(ast.Expression(node.test), "<test>", "eval"), {"__builtins__": {}}))  # noqa: S307
        except Exception:  # noqa: BLE001
            return False
        return _scalar_expr(node.body if taken else node.orelse, scalars)
    if isinstance(node, ast.Name):
        return node.id in scalars or node.id in ("math", "abs", "min", "max", "int", "float", "bool", "round", "pow")
    return all(_scalar_expr(child, scalars) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))


def _scalar_locals(fn: ast.FunctionDef, scalars: Set[str]) -> Set[str]:
    """Locals of ``fn`` every assignment of which is a Python scalar (a fixpoint)."""
    assigns: Dict[str, List[Optional[ast.expr]]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            t = node.targets[0]
            if isinstance(t, ast.Name):
                assigns.setdefault(t.id, []).append(node.value)
            elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
                for a, b in zip(t.elts, node.value.elts):
                    if isinstance(a, ast.Name):
                        assigns.setdefault(a.id, []).append(b)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            assigns.setdefault(node.target.id, []).append(ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value))
        elif isinstance(node, ast.NamedExpr):
            assigns.setdefault(node.target.id, []).append(node.value)
    params = {a.arg for a in fn.args.args}
    out = {n for n in assigns if n not in params}
    changed = True
    while changed:
        changed = False
        for n in list(out):
            if not all(v is not None and _scalar_expr(v, scalars | out) for v in assigns[n]):
                out.discard(n)
                changed = True
    return out


def patterns(module: ast.Module, entry: str = "f") -> Set[str]:
    """Shapes of control flow a program contains, for classifying failures by known bug:

    * ``scalar-if-in-array-if``: an ``if`` on a Python scalar (loop index, constant expression)
      inside a branch of an ``if`` on an array condition;
    * ``loop-return-in-if``: a ``return`` inside a loop that is inside a branch of an ``if`` on an
      array condition.

    Helpers are inlined where they are called: their ifs and loops count as nested in an array
    ``if`` when ``entry`` has any.
    """
    info = module_info(module)
    base = set(info.consts) | set(info.tuples)
    found: Set[str] = set()

    def walk(body: List[ast.stmt], scalars: Set[str], in_array_if: bool, in_loop_in_if: bool) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                scalar = _scalar_expr(stmt.test, scalars)
                if scalar and in_array_if:
                    found.add("scalar-if-in-array-if")
                inner = in_array_if or not scalar
                walk(stmt.body, scalars, inner, in_loop_in_if)
                walk(stmt.orelse, scalars, inner, in_loop_in_if)
            elif isinstance(stmt, ast.For):
                target = {stmt.target.id} if isinstance(stmt.target, ast.Name) else set()
                walk(stmt.body, scalars | target, in_array_if, in_loop_in_if or in_array_if)
            elif isinstance(stmt, ast.While):
                walk(stmt.body, scalars, in_array_if, in_loop_in_if or in_array_if)
            elif isinstance(stmt, ast.Return) and in_loop_in_if:
                found.add("loop-return-in-if")
            elif isinstance(stmt, ast.FunctionDef):
                walk(stmt.body, base, in_array_if, False)

    functions = [s for s in module.body if isinstance(s, ast.FunctionDef)]
    entry_fn = next(s for s in functions if s.name == entry)
    loop_vars = {t.target.id for t in ast.walk(module) if isinstance(t, ast.For) and isinstance(t.target, ast.Name)}
    base = base | _scalar_locals(entry_fn, base | loop_vars)
    walk(entry_fn.body, base, False, False)
    has_array_if = any(isinstance(n, ast.If) and not _scalar_expr(n.test, base | {
        t.target.id for t in ast.walk(entry_fn) if isinstance(t, ast.For) and isinstance(t.target, ast.Name)
    }) for n in ast.walk(entry_fn))
    for fn in functions:
        if fn.name != entry:
            walk(fn.body, base, has_array_if, False)
    return found
