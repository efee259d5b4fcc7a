"""NumPy names as modules spell them (issue 27, D16): a program that calls NumPy
(``numpy_calls``, written ``np.sqrt(...)`` under ``import numpy as np``) is respelled, by a hash
of its text (no random draw: every other program of a seed stays the one it was), to reach NumPy
one of four ways:

* as generated, ``import numpy as np``;
* another alias of the module, ``import numpy as xnp`` (``numpy_alias``);
* its names imported by name, ``from numpy import sqrt, pi`` then ``sqrt(x)`` (``numpy_by_name``;
  a name the program also uses bare, ``abs``, is imported as ``np_abs``);
* each under an alias of its own, ``from numpy import sqrt as np_sqrt`` (``numpy_as``).

A program reading ``math.`` is, by another hash of its text, a quarter of the time respelled to
reach the module under another name, ``import math as pymath`` then ``pymath.sqrt(x)``
(``math_alias``, issue 27: a module alias). The checker and the oracle read such a program as
written with ``math`` (``unalias_math``); the compiler is given the text as generated.

The rewrites keep the line count, so positions in messages stay those of the generated text.
"""

from __future__ import annotations

import ast
import copy
import re
import zlib
from typing import Iterable, List, Optional, Tuple

IMPORT = "import numpy as np"
NP_NAME = re.compile(r"\bnp\.([A-Za-z_][A-Za-z0-9_]*)")
#: The spellings, by the feature name that records them (None: as generated).
SPELLINGS: Tuple[Optional[str], ...] = (None, "numpy_alias", "numpy_by_name", "numpy_as")


def respell(lines: List[str], exclude: Iterable[str]) -> Tuple[List[str], Optional[str]]:
    """The program's lines with NumPy reached one of the ways above, and that way's feature."""
    if IMPORT not in lines:
        return lines, None
    text = "\n".join(lines)
    choices = [s for s in SPELLINGS if s is None or s not in set(exclude)]
    spelling = choices[zlib.crc32(text.encode()) % len(choices)]
    names = sorted(set(NP_NAME.findall(text)))
    if spelling is None or not names:
        return lines, None
    if spelling == "numpy_alias":
        bound = {n: f"xnp.{n}" for n in names}
        header = "import numpy as xnp"
    else:
        # A name the program also uses bare (`abs(x)`, `from math import floor`) keeps its own
        # meaning there: NumPy's is imported under another name.
        bare = {n for n in names if re.search(rf"(?<![\w.]){re.escape(n)}\b", text)}
        bound = {n: n if spelling == "numpy_by_name" and n not in bare else f"np_{n}" for n in names}
        header = "from numpy import " + ", ".join(n if bound[n] == n else f"{n} as {bound[n]}" for n in names)
    out = [header if line == IMPORT else NP_NAME.sub(lambda m: bound[m.group(1)], line) for line in lines]
    return out, spelling


MATH_IMPORT = "import math"
#: The name ``math_alias`` binds the module to.
MATH_ALIAS = "pymath"
MATH_NAME = re.compile(r"(?<![\w.])math\.")


def respell_math(lines: List[str], exclude: Iterable[str]) -> Tuple[List[str], bool]:
    """The program's lines with ``math`` reached as ``pymath`` (``math_alias``, a quarter of the
    programs that read ``math.``, by a hash of their text), and whether it is."""
    text = "\n".join(lines)
    if "math_alias" in set(exclude) or MATH_IMPORT not in lines or not MATH_NAME.search(text):
        return lines, False
    if zlib.adler32(text.encode()) % 4 != 0:
        return lines, False
    out = [f"import math as {MATH_ALIAS}" if line == MATH_IMPORT else MATH_NAME.sub(f"{MATH_ALIAS}.", line) for line in lines]
    return out, True


def unalias_math(module: ast.Module) -> ast.Module:
    """``module`` read with ``math`` where it binds the module to another name (``import math as
    pymath``; a copy, ``module`` itself when it binds none): the checker's and the oracle's
    reading of a ``math_alias`` program."""
    aliases = {
        a.asname for stmt in module.body if isinstance(stmt, ast.Import) for a in stmt.names if a.name == "math" and a.asname
    }
    if not aliases:
        return module
    module = copy.deepcopy(module)
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "math":
                    a.asname = None
        elif isinstance(node, ast.Name) and node.id in aliases:
            node.id = "math"
    return module
