"""The IR of fuzz programs, for the reader's round trip (tests/ir_text.rs, ``IR_TEXT_CORPUS``) and
the Python reader's (tests/unit/test_fuzz_irtext.py).

``python tests/ir_text_corpus.py DIR [SEED] [COUNT]`` writes each program's bodies (exact, float
fast path, int body; each also compiled with ``nan_on_raise=True``) as ``DIR/<index>_<body>.ir``;
then ``IR_TEXT_CORPUS=DIR cargo test --test ir_text`` reads every one back."""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Dict, Iterator, Tuple


def fuzz_ir(seed: int, count: int) -> Iterator[Tuple[str, str]]:
    """``(name, printed IR)`` of every body of the seed's first ``count`` programs that compile."""
    from array_vectorize.api import compile_live
    from array_vectorize.fuzz.check import load, write_program
    from array_vectorize.fuzz.runner import Options, make_program

    with tempfile.TemporaryDirectory() as directory:
        for index in range(count):
            program, _ = make_program(seed, index, Options())
            path = write_program(directory, program.source)
            try:
                fn = load(program.source, path, program.entry)
            except Exception:  # noqa: BLE001 - an invalid program (the fuzzer's own report)
                continue
            for tag, options in (("", {"ir": True}), ("nan_", {"ir": True, "nan_on_raise": True})):
                try:
                    compiled, _ = compile_live(fn, options)
                except Exception:  # noqa: BLE001 - a rejected program has no IR
                    continue
                bodies: Dict[str, str] = {k: compiled.get(k, "") for k in ("ir", "float_ir", "int_ir", "mixed_ir")}
                for body, text in bodies.items():
                    if text:
                        yield f"{index}_{tag}{body}", text


def main(directory: str, seed: int = 7001, count: int = 300) -> int:
    os.makedirs(directory, exist_ok=True)
    n = 0
    for name, text in fuzz_ir(seed, count):
        with open(os.path.join(directory, f"{name}.ir"), "w", encoding="utf-8") as fh:
            fh.write(text)
        n += 1
    print(f"{n} functions written to {directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], *map(int, sys.argv[2:4])))
