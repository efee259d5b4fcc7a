"""The mark a float prologue leaves for the ``Dispatch`` its entry calls next
(runtime/blocked.py): a large NumPy call to run in blocks (``blocked.send_large``), or a call
with pandas or xarray containers to run on the arrays inside them (runtime/containers.py). Below
both modules, which leave and read it: the Dispatch takes the mark (``mark.sent``) of its own
call only, and clears it.
"""

from __future__ import annotations

import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: This thread's mark: ``sent``, ``(frame of the generated entry called, marker)`` or None.
mark = threading.local()


def is_ndarray(a: Any) -> bool:
    """Whether `a` is exactly a ``numpy.ndarray`` (not a subclass), without importing NumPy."""
    t = type(a)
    return t.__name__ == "ndarray" and t.__module__ == "numpy"


def send(marker: Any) -> None:
    """The float prologue's ``None`` for a call that the ``Dispatch`` its entry calls next must
    handle. A NumPy array ``marker`` (one of the call's arguments) marks a large call
    (``send_large``), anything else a call with pandas or xarray containers
    (runtime/containers.py).

    The mark holds the frame of the generated entry being called (the first frame above the
    prologue's own), which only that call's dispatch sees as its caller: a mark left behind by a
    call interrupted between here and its dispatch (Ctrl-C, issue 28 item 7) matches no later
    call, whatever its arguments (it holds that frame until this thread's next marked call or
    dispatch)."""
    frame = sys._getframe(1)
    for _ in range(8):  # send_large or send_container, a plan, its prologue, wrappers, the entry
        name = frame.f_code.co_filename
        if name.startswith("<array-vectorize ") and name not in _PROLOGUE_FILES:
            break
        frame = frame.f_back
        if frame is None:
            break
    # Not found (a prologue called by something else): a mark no dispatch's caller is.
    mark.sent = (frame if frame is not None else _NO_ENTRY, marker)


#: The file names of the compiled plans and prologues (runtime/args.py `_compiled`); a generated
#: entry's is ``<array-vectorize QUALNAME DIGEST>`` (emit.py `code_filename`).
_PROLOGUE_FILES = frozenset({"<array-vectorize plan>", "<array-vectorize prologue>"})
_NO_ENTRY = object()
