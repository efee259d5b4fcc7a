//! Unit tests of the parameter modes (D14 uniform values).

use crate::env::Binding;
use crate::ir::ParamMode;
use crate::pipeline::testing::{env, errors, ir_after_with};
use crate::pipeline::Options;

fn modes(src: &str, e: &crate::env::Env) -> Vec<ParamMode> {
    ir_after_with(src, "lower", e, Options::default()).modes
}

#[test]
fn uses_and_annotations_decide_which_parameters_are_uniform() {
    let mut e = env(&[
        ("Unit", Binding::Enum(vec!["SI".into()])),
        ("WHEN", Binding::Object("dict".into())),
    ]);
    for b in ["sum", "len", "zip"] {
        e.insert(b.into(), Binding::Builtin(b.into()));
    }
    use ParamMode::{Number, Optional, Uniform};
    let cases: &[(&str, &[ParamMode])] = &[
        (
            "def f(x, p):\n    return x * p['rate']\n",
            &[Number, Uniform],
        ),
        (
            "def f(x, cfg):\n    return x * cfg.rate\n",
            &[Number, Uniform],
        ),
        (
            "def f(x, phase):\n    return x if phase == 'ice' else -x\n",
            &[Number, Uniform],
        ),
        (
            "def f(x, u):\n    return x if u == Unit.SI else -x\n",
            &[Number, Uniform],
        ),
        (
            "def f(x, u):\n    return x if u is Unit.SI else -x\n",
            &[Number, Uniform],
        ),
        (
            "def f(x, m):\n    return x if isinstance(m, str) else -x\n",
            &[Number, Uniform],
        ),
        (
            "def f(x, lim=None):\n    return x if lim is None else min(x, lim)\n",
            &[Number, Optional],
        ),
        ("def f(x, p: dict):\n    return x\n", &[Number, Uniform]),
        // D14: only a string finds a key of a module dict of strings.
        (
            "def f(x, when):\n    return x * WHEN[when]\n",
            &[Number, Uniform],
        ),
        // A string default (`material="steel"` keying a table), unless annotated a number.
        (
            "def f(x, m='s', n: float = 'a'):\n    return x if m else x * n\n",
            &[Number, Uniform, Number],
        ),
        // D14, D15: a number cannot be iterated (`given` loops over the items).
        (
            "def f(x, a, b, c):\n    return sum(a) + sum(x * r for r in b) + len(c)\n",
            &[Number, Uniform, Uniform, Uniform],
        ),
        (
            "def f(x, a, b):\n    for r, s in zip(a, b):\n        x = x + r * s\n    return x\n",
            &[Number, Uniform, Uniform],
        ),
        ("def f(x, u: Unit):\n    return x\n", &[Number, Uniform]),
        (
            "def f(x, lim: Optional[float] = None):\n    return x\n",
            &[Number, Optional],
        ),
        (
            "def f(x, lim: float | None = None):\n    return x\n",
            &[Number, Optional],
        ),
        (
            "def f(x: float, n: int):\n    return x * n\n",
            &[Number, Number],
        ),
        // D18: uses inside a local dict display and a comprehension count too.
        (
            "def f(x, cap):\n    d = {0: cap is not None, 1: x}\n    return d[1]\n",
            &[Number, Optional],
        ),
        (
            "def f(x, p):\n    a = [x * p['w'] for k in range(2)]\n    return a[1]\n",
            &[Number, Uniform],
        ),
    ];
    for (src, expected) in cases {
        assert_eq!(&modes(src, &e), expected, "{src}");
    }
}

#[test]
fn membership_of_a_uniform_value_in_literals_compiles() {
    let source = crate::pipeline::testing::compiled(
        "def f(x, flag: str):\n    if flag not in ('c', 'p'):\n        raise ValueError(flag)\n    return x if flag == 'c' else -x\n",
    )
    .source;
    assert!(
        source.contains("flag_1 == 'c' or flag_1 == 'p'"),
        "{source}"
    );
}

#[test]
fn is_on_numbers_is_refused_with_a_hint() {
    let e =
        errors("def f(x):\n    t = x * 2.0\n    u = x + 1.0\n    return 1.0 if t is u else 0.0\n");
    assert!(
        e.iter().any(|m| m.contains("`is` compares identities")),
        "{e:?}"
    );
}

#[test]
fn attributes_of_numbers_are_refused() {
    let e = errors("def f(x):\n    return (x + 1.0).real\n");
    assert!(e.iter().any(|m| m.contains("uniform values")), "{e:?}");
}
