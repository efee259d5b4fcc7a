"""Local containers (D18) and names some lanes never assign (D20) in the grammar (``Generator``
mixin), drawn from a random stream of their own (``self.box_rng``): a program that draws none
is the program its seed gave before they existed.

Statements (in ``f``'s own body, outside loops: a container changed in a loop whose trip count
is per element is rejected by design, D18), each a feature of ``generator.FEATURES``:

* ``local_list``: ``l4 = [e, e, e]`` or a tuple ``q4 = (e, e)``, of 2 to 4 numbers;
* ``append_loop``: ``l4 = []`` then ``for i5 in range(k): l4.append(e)`` (``e`` may read ``i5``);
* ``local_dict``: ``d4 = {0: e, 1: e, 2: e}`` (read like a list of as many items);
* ``list_store``: ``l4[c] = e`` and ``l4[c] += e`` with a constant index in range;
* ``zip_loop``: ``for a5, b5 in zip(l4, l6):`` then ``v = v + a5 * b5`` (unrolled, D18);
* ``elif_unbound``: ``if c1: u7 = e`` ``elif c2: u7 = e`` without ``else``, then a read of
  ``u7``: the lanes that took neither branch raise UnboundLocalError there (D20); after the read
  the name is defined (those lanes have left), but each read is still a raise site to the
  compiler, so it is not read where nothing may raise (``raise_free_env``).

Reads (``box_leaf``, from ``leaf``): ``l4[c]`` with a constant index in range, ``l4[i]`` with a
loop index in range, a per-element index (``lane_index``: ``l4[int(b) + int(c)]`` of conditions,
always in range; not in a ``finally`` clause or a ``while`` test, which may not raise),
``sum(l4)``, ``max(l4)``, ``min(l4)`` and ``len(l4)``.
"""

from __future__ import annotations

from .grammar_env import Env

#: The features of this grammar (``generator.FEATURES`` lists them too).
CONTAINER_FEATURES = ("local_list", "append_loop", "local_dict", "list_store", "zip_loop", "lane_index", "elif_unbound")


class ContainerGrammar:
    """Mixin of ``generator.Generator`` (module docstring)."""

    def draw_containers(self) -> None:
        """Which of this grammar's features the program draws (two thirds draw none)."""
        brng = self.box_rng
        if brng.random() < 2 / 3:
            return
        for feature, p in (
            ("local_list", 0.6), ("append_loop", 0.4), ("local_dict", 0.3), ("list_store", 0.4), ("zip_loop", 0.3),
            ("lane_index", 0.4), ("elif_unbound", 0.4),
        ):
            # `append_loop` and `zip_loop` write `for` loops: left out with `loop` too.
            loops = feature in ("append_loop", "zip_loop") and "loop" in self.exclude
            if brng.random() < p and feature not in self.exclude and not loops:
                self.box.add(feature)

    def box_statement(self, env: Env, indent: int) -> bool:
        """Emits one statement of this grammar (whether it did)."""
        if not self.box or not self.in_entry or self.loop_depth or self.in_try:
            return False
        brng = self.box_rng
        if brng.random() >= 0.3:
            return False
        choices = [f for f in ("local_list", "append_loop", "local_dict", "elif_unbound") if f in self.box]
        lists = [n for n in sorted(env.containers) if n.startswith("l")]
        if "list_store" in self.box and lists:
            choices.append("list_store")
        sequences = [n for n in env.containers if n[0] in "lq"]
        if "zip_loop" in self.box and sequences and [v for v in env.nums if v not in env.frozen]:
            choices.append("zip_loop")
        if not choices:
            return False
        # Changing and walking the containers made so far, half the time there are some.
        later = [c for c in choices if c in ("list_store", "zip_loop")]
        kind = brng.choice(later if later and brng.random() < 0.5 else choices)
        self.used.add(kind)
        getattr(self, f"_box_{kind}")(env, indent)
        return True

    def _box_local_list(self, env: Env, indent: int) -> None:
        n = self.box_rng.randint(2, 4)
        items = ", ".join(self.num(env, 2) for _ in range(n))
        if self.box_rng.random() < 0.3:
            name = self.fresh("q")
            self.emit(indent, f"{name} = ({items})")
        else:
            name = self.fresh("l")
            self.emit(indent, f"{name} = [{items}]")
        env.containers[name] = n

    def _box_append_loop(self, env: Env, indent: int) -> None:
        name = self.fresh("l")
        k = self.box_rng.randint(1, 4)
        i = self.fresh("i")
        self.emit(indent, f"{name} = []")
        self.emit(indent, f"for {i} in range({k}):")
        body = env.copy()
        body.indices[i] = list(range(k))
        self.emit(indent + 1, f"{name}.append({self.num(body, 2)})")
        env.containers[name] = k

    def _box_local_dict(self, env: Env, indent: int) -> None:
        n = self.box_rng.randint(2, 4)
        name = self.fresh("d")
        entries = ", ".join(f"{k}: {self.num(env, 2)}" for k in range(n))
        self.emit(indent, f"{name} = {{{entries}}}")
        env.containers[name] = n

    def _box_list_store(self, env: Env, indent: int) -> None:
        brng = self.box_rng
        name = brng.choice([n for n in sorted(env.containers) if n.startswith("l")])
        n = env.containers[name]
        at = brng.randrange(-n, n)
        op = brng.choice(["=", "+=", "*=", "-="])
        self.emit(indent, f"{name}[{at}] {op} {self.num(env, 2)}")

    def _box_zip_loop(self, env: Env, indent: int) -> None:
        brng = self.box_rng
        sequences = [n for n in sorted(env.containers) if n[0] in "lq"]
        first, second = brng.choice(sequences), brng.choice(sequences)
        acc = brng.choice([v for v in env.nums if v not in env.frozen])
        a, b = self.fresh("a"), self.fresh("b")
        self.emit(indent, f"for {a}, {b} in zip({first}, {second}):")
        body = env.copy()
        body.nums.extend([a, b])
        self.emit(indent + 1, f"{acc} = {acc} + {a} * {b} - {self.num(body, 1)}")

    def _box_elif_unbound(self, env: Env, indent: int) -> None:
        name = self.fresh("u")
        self.emit(indent, f"if {self.cond(env, 2)}:")
        self.emit(indent + 1, f"{name} = {self.num(env, 2)}")
        for _ in range(self.box_rng.randint(1, 2)):
            self.emit(indent, f"elif {self.cond(env, 2)}:")
            self.emit(indent + 1, f"{name} = {self.num(env, 2)}")
        reader = self.fresh("v")
        self.emit(indent, f"{reader} = {name} * {self.num(env, 1)}")
        env.nums.extend([name, reader])
        self.maybe_unbound.add(name)

    def raise_free_env(self, env: Env) -> Env:
        """``env`` for a place that may not raise (``raise_free``): without the names some
        elements never assigned (D20: each read of one is a raise site to the compiler) and the
        callees that convert to int (item 7's raise sites). ``env`` itself when it holds none, so
        the random streams of other programs stay."""
        if not self.maybe_unbound.intersection(env.nums) and not any(c.converts for c in env.callees):
            return env
        safe = env.copy()
        safe.nums = [n for n in env.nums if n not in self.maybe_unbound]
        safe.callees = [c for c in env.callees if not c.converts]
        return safe

    def box_leaf(self, env: Env) -> str:
        """A read of a container of ``env`` (``leaf``)."""
        brng = self.box_rng
        name = brng.choice(sorted(env.containers))
        n = env.containers[name]
        form = brng.random()
        if form < 0.15 and name[0] in "lq":
            reducer = brng.choice(["sum", "max", "min", "len"])
            return f"{reducer}({name})"
        # Not where nothing may raise: an index read per element is a raise site (IndexError,
        # KeyError; seed 561004 #1167 in a `finally` clause, 561001 #1273 in a `while` test).
        if form < 0.4 and "lane_index" in self.box and n >= 2 and not self.raise_free:
            self.used.add("lane_index")
            first = f"int({self.cond(env, 1)})"
            if n >= 3 and brng.random() < 0.5:
                return f"{name}[{first} + int({self.cond(env, 1)})]"
            return f"{name}[{first}]"
        fitting = [i for i, vs in env.indices.items() if vs and all(0 <= v < n for v in vs)]
        if fitting and form < 0.6:
            return f"{name}[{brng.choice(sorted(fitting))}]"
        at = brng.randrange(0, n) if name.startswith("d") else brng.randrange(-n, n)
        return f"{name}[{at}]"
