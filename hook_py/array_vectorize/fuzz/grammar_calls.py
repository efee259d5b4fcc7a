"""The D14, D16 and D17 parts of the grammar (``Generator`` mixin): uniform parameters, NumPy
calls in scalar code, and the ``math`` functions the Array API lacks.

* uniform parameters (D14), appended after the numeric ones: ``rates`` a dict read with
  constant keys (``uniform_dict``), ``mode`` an Enum member of the module compared with ``is``
  and ``==`` (``uniform_enum``), ``cap`` ``None`` or a number, read only where ``cap is not
  None`` holds (``uniform_none``), ``label`` a string compared with literals (``uniform_str``).
  The harness passes one object per call, picked per run (``Program.uniforms``);
* ``numpy_calls`` (D16): ``np.sqrt``, ``np.maximum``, ``np.where``, ``np.float64``, ``np.pi``...
  with ``import numpy as np``;
* ``special_exact`` (D17, exact: ``fmod``, ``remainder``, ``fsum``, ``isclose``, ``round(x, n)``)
  anywhere in expressions; ``special_inexact`` (``erf``, ``erfc``, ``gamma``, ``lgamma``, documented
  within some ulps) only as the value of a ``return`` of ``f`` on a parameter ``f`` never
  assigns, so the documented bound applies to that element's result and to nothing else
  (``oracle.special_close``).

Every decision is drawn from ``self.ext_rng`` (``grammar_raise.py``).
"""

from __future__ import annotations

import re
from typing import Dict, List

from .wellformed_ext import ANNOTATIONS

ENUM_CLASS = "class Mode(enum.Enum):\n    FAST = 1\n    SLOW = 2\n    EXACT = 3"
MODES = ("FAST", "SLOW", "EXACT")
LABELS = ("a", "b", "linear")
RATE_KEYS = ("low", "high")
NP_UNARY = ("sqrt", "exp", "log", "abs", "floor", "sign", "float64")
NP_GUARDS = {"sqrt": "np.abs({}) + 0.5", "log": "np.abs({}) + 1.0", "exp": "{} % 20.0"}
INEXACT = ("erf", "erfc", "gamma", "lgamma")


class CallGrammar:
    """Mixin of ``generator.Generator`` (module docstring)."""

    def uniform_params(self) -> Dict[str, List[object]]:
        """The uniform parameters this program takes, each with the objects a call may pass."""
        from .inputs import ModuleRef

        rng = self.ext_rng
        out: Dict[str, List[object]] = {}
        if self.ext_on("uniform_dict", 0.35):
            out["rates"] = [
                {"low": rng.choice([0.5, 2.0, -1.5, 3]), "high": rng.choice([10.0, -0.25, 7, 1e300])} for _ in range(3)
            ]
        if self.ext_on("uniform_enum", 0.35):
            self.module_classes.append("Mode")
            out["mode"] = [ModuleRef("Mode", m) for m in MODES]
        if self.ext_on("uniform_none", 0.35):
            out["cap"] = [None, None, rng.choice([0.5, 4.0, -2.0]), rng.choice([3, 0])]
        if self.ext_on("uniform_str", 0.35):
            out["label"] = list(LABELS)
        return out

    def uniform_signature(self, first_body_line: int) -> List[str]:
        """The uniform parameters of ``f``'s signature: a parameter the body never uses, and
        some others, carry the annotation that makes it uniform (D14: without a use or an
        annotation, a parameter is a number)."""
        body = "\n".join(self.lines[first_body_line:])
        out = []
        for name in self.uniforms:
            used = re.search(rf"\b{name}\b", body) is not None
            if not used or self.ext_rng.random() < 0.3:
                out.append(f"{name}: {ANNOTATIONS[name]}")
            else:
                out.append(name)
        return out

    def uniform_leaf(self, env) -> str:
        """A number read from a uniform parameter."""
        rng = self.ext_rng
        choices = []
        if "rates" in self.uniforms:
            choices += [f'rates["{k}"]' for k in RATE_KEYS]
        if "cap" in self.uniforms:
            k = rng.choice(["1.0", "0.0", "2", "-0.5"])
            choices.append(f"({k} if cap is None else cap)")
            choices.append(f"(cap if cap is not None else {k})")
        if "mode" in self.uniforms:
            choices.append("mode.value")
        if not choices:
            return self.plain_leaf(env)
        self.last_uniform_leaf = rng.choice(choices)
        return self.last_uniform_leaf

    def uniform_test(self) -> str:
        """A condition on uniform parameters only (a Python ``if``, D14)."""
        rng = self.ext_rng
        tests = []
        if "mode" in self.uniforms:
            m = rng.choice(MODES)
            tests += [f"mode is Mode.{m}", f"mode == Mode.{m}", f"mode is not Mode.{m}", f"mode != Mode.{m}"]
        if "cap" in self.uniforms:
            tests += ["cap is None", "cap is not None"]
        if "label" in self.uniforms:
            tests += [f'label == "{rng.choice(LABELS)}"', f'label != "{rng.choice(LABELS)}"']
        if "rates" in self.uniforms:
            tests.append(f'rates["low"] > {rng.choice(["0.0", "1.0"])}')
        return rng.choice(tests)

    def numpy_call(self, env, e) -> str:
        """A NumPy call in scalar code (D16)."""
        rng = self.ext_rng
        self.used.add("numpy_calls")
        kind = rng.choice(NP_UNARY + ("maximum", "minimum", "where", "clip", "power", "const"))
        if kind == "const":
            return rng.choice(["np.pi", "np.inf", "(-np.inf)"])
        if kind in ("maximum", "minimum"):
            return f"np.{kind}({e()}, {e()})"
        if kind == "where":
            return f"np.where({self.cond(env, 1)}, {e()}, {e()})"
        if kind == "clip":
            lo = rng.choice([-1.0, 0.0, -5, 0.5])
            return f"np.clip({e()}, {lo!r}, {lo + rng.choice([1.0, 2.5, 10])!r})"
        if kind == "power":
            base = f"np.abs({e()})" if rng.random() < 0.6 else e()
            return f"np.power({base}, {rng.choice(['2.0', '0.5', '3', '-1.0', '1.5'])})"
        arg = e()
        if kind in NP_GUARDS and rng.random() < 0.6:
            arg = NP_GUARDS[kind].format(arg)
        return f"np.{kind}({arg})"

    def special_exact_call(self, env, e) -> str:
        """An exact D17 function (any position)."""
        rng = self.ext_rng
        self.used.add("special_exact")
        kind = rng.choice(["fmod", "remainder", "fsum", "round", "round", "isclose"])
        if kind == "fsum":
            return f"math.fsum(({', '.join(e() for _ in range(rng.choice([2, 3, 3, 4])))}))"
        if kind == "round":
            # round(x, n) needs x's kind known: a float, or an int (whose result is an int).
            # int() is item 7's raise site: not where nothing may raise (a `finally` clause
            # refuses it, D10; seed 712002 #1494), the draw kept so the seeds' programs stay.
            to_int = self.int_casts and rng.random() < 0.25
            cast = "int" if to_int and not self.raise_free else "float"
            return f"round({cast}({e()}), {rng.choice([-2, -1, 0, 1, 2, 3, 6])})"
        if kind == "isclose":
            return f"math.isclose({e()}, {e()})"
        return f"math.{kind}({e()}, {e()})"

    def special_return(self, indent: int) -> None:
        """``return math.erf(p)`` on a parameter ``f`` never assigns (module docstring)."""
        rng = self.ext_rng
        self.used.add("special_inexact")
        name = rng.choice(INEXACT)
        arg = self.special_param
        if self.kinds[int(arg[1:])] == "f" and rng.random() < 0.5:
            arg = f"-{arg}"  # (a negated uint64 would wrap, item 13)
        self.emit(indent, f"return math.{name}({arg})")
