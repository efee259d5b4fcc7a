"""NumPy names as modules spell them (issue 27, D16): a program that calls NumPy
(``numpy_calls``, written ``np.sqrt(...)`` under ``import numpy as np``) is respelled, by a hash
of its text (no random draw: every other program of a seed stays the one it was), to reach NumPy
one of four ways:

* as generated, ``import numpy as np``;
* another alias of the module, ``import numpy as xnp`` (``numpy_alias``);
* its names imported by name, ``from numpy import sqrt, pi`` then ``sqrt(x)`` (``numpy_by_name``;
  a name the program also uses bare, ``abs``, is imported as ``np_abs``);
* each under an alias of its own, ``from numpy import sqrt as np_sqrt`` (``numpy_as``).

The rewrite keeps the line count, so positions in messages stay those of the generated text.
"""

from __future__ import annotations

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
