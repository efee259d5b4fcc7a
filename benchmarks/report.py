"""The printed report of ``make bench`` (benchmarks/run.py): markdown tables of the runtime rows,
decoration latency, the optional suites' results and the bars, as docs/benchmarks.md quotes them.
Printing only: every figure is measured in run.py and the suites."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from run import Config

#: The two input sizes the runtime figures are measured at: large calls and the call overhead.
N_BIG = 1_000_000
N_SMALL = 10


def md_table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    right = [i > 0 for i in range(len(headers))]

    def line(cells):
        out = []
        for i, c in enumerate(cells):
            out.append(c.rjust(widths[i]) if right[i] else c.ljust(widths[i]))
        return "| " + " | ".join(out) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if right[i] else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return "\n".join([line(headers), sep] + [line(r) for r in rows])


def print_runtime(rows: list[dict], cfg: Config) -> None:
    print(f"\n## Runtime: {N_BIG:,} float64 elements (median of {cfg.big_repeats} calls each)\n")
    table = []
    for r in rows:
        if "error" in r:
            table.append([r["function"], "-", "-", "FAILED", "-", "-", "-", "-", "-", "-", "-", "-"])
            continue
        table.append(
            [
                r["function"],
                f"{r['hand_ms']:.2f}",
                f"{r['gen_ms']:.2f}",
                f"{r['ratio']:.3f}",
                f"{r['ratio_best']:.3f}",
                f"{r['gen1_ms']:.2f}" if "gen1_ms" in r else "-",
                f"{r['ratio1']:.3f}" if "ratio1" in r else "-",
                f"{r['npvec_ms']:.0f}",
                f"{r['speedup']:.0f}x",
                f"{r['speedup1']:.0f}x" if "speedup1" in r else "-",
                f"{r['hand_speedup']:.0f}x",
                f"{r['numba_speedup']:.0f}x" if "numba_speedup" in r else "-",
            ]
        )
    print(
        md_table(
            [
                "function",
                "hand-written ms",
                "generated ms",
                "gen / hand",
                "best / best",
                "generated ms, 1 thread",
                "gen / hand, 1 thread",
                "np.vectorize ms",
                "generated vs np.vectorize",
                "the same, 1 thread",
                "hand-written vs np.vectorize",
                "numba.vectorize vs np.vectorize",
            ],
            table,
        )
    )
    npvec = f"np.vectorize(scalar, otypes=[float64]) timed on {cfg.npvec_n:,} elements (median of {cfg.npvec_repeats})"
    if cfg.npvec_n != N_BIG:
        npvec += f" and scaled linearly to {N_BIG:,} (which flatters np.vectorize)"
    print(
        "\nhand-written: xp = array_api_compat.numpy (xp.where, xp.exp, ... are NumPy's own functions).\n"
        f"{npvec}.\ngen / hand is the median ratio of back-to-back calls (the figure the bars use); best / best\n"
        "is the fastest generated call over the fastest hand-written one (least disturbed by other load).\n"
        "numba.vectorize vs np.vectorize: compiled machine code calling the same libm (peers below),\n"
        "the most an exact rewrite could gain where the math functions themselves take the time.\n"
        f"Wall time. Large generated calls run their blocks on {cfg.threads} thread(s) (runtime/threads.py);\n"
        "'1 thread': the same pairs with ARRAY_VECTORIZE_THREADS=1 (the hand-written code, np.vectorize\n"
        "and numba.vectorize run on one thread)."
    )

    print(f"\n## Peak memory and peers: {N_BIG:,} float64 elements\n")
    table = []
    for r in rows:
        if "error" in r:
            continue
        table.append(
            [
                r["function"],
                f"{r['hand_peak_mb']:.1f}",
                f"{r['gen_peak_mb']:.1f}",
                f"{r['jax_ms']:.2f}" if "jax_ms" in r else r.get("jax_error", "-")[:40],
                f"{r['numba_ms']:.2f}" if "numba_ms" in r else r.get("numba_error", "-"),
                f"{r['jax_vs_numba']:.2f}" if "jax_vs_numba" in r else "-",
                f"{r['gen_vs_numba']:.2f}" if "gen_vs_numba" in r else "-",
                f"{r['jax_hand_ms']:.2f}" if "jax_hand_ms" in r else r.get("jax_hand_error", "-")[:40],
                f"{r['jax_gen_vs_hand']:.2f}" if "jax_gen_vs_hand" in r else "-",
            ]
        )
    print(
        md_table(
            [
                "function",
                "hand-written peak MB",
                "generated peak MB",
                "jax.jit(generated) ms",
                "numba.vectorize ms",
                "jax / numba",
                "generated (NumPy) / numba",
                "jax.jit(hand) ms",
                "jax gen / jax hand",
            ],
            table,
        )
    )
    print(
        "\npeak MB: tracemalloc's peak during one call above what was allocated before it (NumPy reports\n"
        "its buffers to tracemalloc): temporaries plus the 8 MB result. jax.jit of the generated function\n"
        "(float64, XLA on one thread) and numba.vectorize of the scalar original (float64 signature),\n"
        "steady state, wall time, median of back-to-back ratios; '-' where a peer is not installed.\n"
        "generated (NumPy) / numba: the generated function on NumPy arrays against numba.vectorize, timed\n"
        "the same way (the only peer figure of a function jax.jit cannot trace: a while loop, D12).\n"
        "jax.jit(hand): the hand-written version under jax.jit (xp = jax.numpy), timed the same way\n"
        "against jax.jit(generated) (jax gen / jax hand) and against numba: XLA's own floor, without\n"
        "the code generator. An error where jax.jit cannot trace it (a data-dependent loop)."
    )

    print(f"\n## Call overhead: {N_SMALL}-element inputs (median of {cfg.small_repeats} x {cfg.small_number} calls)\n")
    table = [
        [
            r["function"],
            f"{r['hand10_us']:.2f}",
            f"{r['gen10_us']:.2f}",
            f"{r['overhead_us']:+.2f}",
            f"{r['overhead_best_us']:+.2f}",
        ]
        for r in rows
        if "error" not in r
    ]
    print(md_table(["function", "hand-written us", "generated us", "generated - hand us", "best - best us"], table))


def print_compile(res: dict) -> None:
    import bench_compile

    print(f"\n## Decoration latency (median of {res['iterations']} fresh function objects)\n")
    rows = [[fmt.format(row[key]) for key, _, fmt in bench_compile.COLUMNS] for row in res["rows"]]
    print(md_table([c[1] for c in bench_compile.COLUMNS], rows))
    print(
        "\nvectorize(f): the whole decoration with the module's file in linecache; cold: after\n"
        "linecache.clearcache(). The other columns time each stage of vectorize alone; rest = total - stages."
    )


def _fmt_value(v) -> str:
    if isinstance(v, bool) or not isinstance(v, float):
        return str(v)
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def print_generic(title: str, res) -> None:
    print(f"\n## {title}\n")
    if not isinstance(res, dict):
        print(_fmt_value(res))
        return
    rows = res.get("rows")
    if isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
        headers = list(dict.fromkeys(k for r in rows for k in r))
        print(md_table(headers, [[_fmt_value(r.get(h, "")) for h in headers] for r in rows]))
        print()
    for key, value in res.items():
        if key in ("rows", "bars"):
            continue
        if isinstance(value, dict):
            print(f"{key}:")
            for k2, v2 in value.items():
                print(f"  {k2}: {_fmt_value(v2)}")
        else:
            print(f"{key}: {_fmt_value(value)}")


def print_bars(bars: list[dict]) -> None:
    print("\n## The bars\n")
    rows = [[b["what"], str(b["figure"]), str(b["bar"]), "met" if b["met"] else "NOT MET"] for b in bars]
    print(md_table(["figure", "measured", "bar", ""], rows))


# ----------------------------------------------------------------------------- other suites
