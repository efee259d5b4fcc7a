"""isinstance guards on ``f``'s parameters in the grammar (D22, ``Generator`` mixin; feature
``isinstance_guard``), drawn from a random stream of their own (``self.type_rng``): a program
that draws none is the program its seed gave before they existed.

At the top of ``f`` (unless ``f`` calls itself), on a numeric parameter (the compiler decides
the test once per call from the argument's dtype, or a Python scalar's type; a bool element is an
``int`` too), one or two of:

* a validation, ``if not isinstance(p0, (int, float)) or p0 != p0:`` then
  ``raise ValueError(f"p0={p0} is not a number")``: never for its type, on NaN lanes for its value;
* a branch on the element type, ``if isinstance(p1, T):`` ``v3 = e`` ``else:`` ``v3 = e``, with
  ``T`` one of ``int``, ``float``, ``bool``, ``(int, float)``, ``(bool, float)``; ``v3`` is then
  a number the body reads.
"""

from __future__ import annotations

from .grammar_env import Env

#: The types a branch tests (``isinstance(p, T)``).
ELEMENT_TYPES = ("int", "float", "bool", "(int, float)", "(bool, float)")


class TypeGrammar:
    """Mixin of ``generator.Generator`` (module docstring)."""

    def type_guards(self, env: Env, indent: int) -> None:
        """Emits this program's guards at the top of ``f`` (a seventh of the programs draw them)."""
        trng = self.type_rng
        # Not where `f` calls itself: its inlined levels test a computed number, which D22
        # refuses with its position (only a parameter as passed has a type per element).
        if trng.random() >= 1 / 7 or "isinstance_guard" in self.exclude or "recursion_self" in self.used:
            return
        self.used.add("isinstance_guard")
        for _ in range(trng.randint(1, 2)):
            p = trng.choice(self.numeric_params)
            if trng.random() < 0.35:
                self.emit(indent, f"if not isinstance({p}, (int, float)) or {p} != {p}:")
                self.emit(indent + 1, f'raise ValueError(f"{p}={{{p}}} is not a number")')
                continue
            name = self.fresh("v")
            self.emit(indent, f"if isinstance({p}, {trng.choice(ELEMENT_TYPES)}):")
            self.emit(indent + 1, f"{name} = {self.num(env, 2)}")
            self.emit(indent, "else:")
            self.emit(indent + 1, f"{name} = {self.num(env, 2)}")
            env.nums.append(name)
