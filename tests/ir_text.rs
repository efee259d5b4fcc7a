//! The IR's text form both ways (src/ir/read.rs): for every compiler fixture and golden case
//! (each body's optimized IR: exact, float fast path, int body), the IR after every pass of a
//! few programs covering the grammar (recursion's residue, D19; exceptions as written, D21; calls
//! run element by element, D23, among them), and the IR every pass fixture states, print ->
//! read -> print is identical and the function read passes the verifier.
//!
//! `IR_TEXT_CORPUS=<dir>` adds every `*.ir` file of that directory (one printed function each):
//! the IR of fuzz programs, written by `python tests/ir_text_corpus.py <dir>`.

use std::path::{Path, PathBuf};

use array_vectorize_core::env::{Binding, Env};
use array_vectorize_core::frontend::Input;
use array_vectorize_core::ir::read::read;
use array_vectorize_core::ir::verify::{verify, Kinds};
use array_vectorize_core::ir::{Const, Function};
use array_vectorize_core::pipeline::{compile_observed, Options, Request};
use array_vectorize_core::static_module::{compile_module, Outcome};

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

/// Compiles `f` of `source` under `env` and `options`, showing `observe` the IR after every
/// pass; panics where it does not compile.
fn each_pass(source: &str, env: &Env, options: Options, observe: &mut dyn FnMut(&str, &Function)) {
    let req = Request {
        input: Input::Text {
            source,
            path: "fixture.py",
            first_line: 1,
        },
        name: "f",
        env,
        options,
    };
    if let Err(e) = compile_observed(&req, observe) {
        panic!("does not compile: {e:?}\n{source}");
    }
}

/// `text` read, printed again and verified; the failure, named by `what`, if any.
fn round_trip(what: &str, text: &str) -> Option<String> {
    let f = match read(text) {
        Ok(f) => f,
        Err(e) => return Some(format!("{what}: does not read: {e}\n{text}")),
    };
    let again = f.to_string();
    if again != text {
        return Some(format!(
            "{what}: printed differently\n--- read\n{text}--- printed\n{again}"
        ));
    }
    verify(&f, Kinds::Operations)
        .err()
        .map(|e| format!("{what}: the function read does not verify: {e}\n{text}"))
}

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn compiled_modules_read_back() {
    let root = manifest();
    let mut paths = files(&root.join("tests/fixtures/compiler"), "py");
    paths.extend(files(&root.join("tests/golden/cases"), "py"));
    let (mut failures, mut checked) = (vec![], 0);
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Ok(functions) = compile_module(&text, &name, None) else {
            continue; // a fixture of a syntax error
        };
        for f in functions {
            let Outcome::Ok(c) = f.outcome else { continue };
            let bodies = [("exact", &c.ir), ("float", &c.float_ir), ("int", &c.int_ir)];
            let mixed = c.mixed_ir.as_ref().map(|m| ("mixed", m));
            for (body, ir) in bodies.into_iter().chain(mixed) {
                checked += 1;
                let what = format!("{name}: {} ({body})", f.qualname);
                failures.extend(round_trip(&what, &ir.to_string()));
            }
        }
    }
    assert!(checked >= 30, "only {checked} bodies compiled");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn compiled_functions_read_back_after_every_pass() {
    let sources = [
        // A masked loop (D12) that returns early, and a raise (D11).
        "def f(x):\n    while x > 1.0:\n        x = x / 2.0\n        if x < 1.5:\n            return x\n    if x < 0:\n        raise ValueError(f\"negative {x}\")\n    return x\n",
        // A scalar `if` in a loop over a tuple, and a tuple result.
        "def f(x):\n    s = 0\n    for k in STEPS:\n        if k > 1:\n            s = s + k * x\n    return s, x\n",
        // Uniform values (D14) and NumPy's rounding (D16) through a math call.
        "def f(x, band):\n    if band == \"high\":\n        return math.floor(x)\n    return abs(x)\n",
        // The type of a parameter's elements (D22), decided once per call.
        "def f(x):\n    if isinstance(x, int) and type(x) is not bool:\n        return x * 2\n    return x\n",
    ];
    let mut env = Env::new();
    env.insert("math".into(), Binding::MathModule);
    for builtin in ["abs", "isinstance", "type", "int", "bool"] {
        env.insert(builtin.into(), Binding::Builtin(builtin.into()));
    }
    let mro = ["ValueError", "Exception", "BaseException"];
    env.insert(
        "ValueError".into(),
        Binding::ExceptionClass(mro.map(String::from).to_vec()),
    );
    let steps = Const::Tuple(vec![Const::Int(1), Const::Float(2.5), Const::Int(3)]);
    env.insert("STEPS".into(), Binding::Const(steps));
    let (mut failures, mut checked) = (vec![], 0);
    for nan_on_raise in [false, true] {
        for source in sources {
            let options = Options {
                nan_on_raise,
                ..Options::default()
            };
            each_pass(source, &env, options, &mut |pass, f| {
                checked += 1;
                failures.extend(round_trip(&format!("after {pass}"), &f.to_string()));
            });
        }
    }
    // lower, then 6 passes on each of the three bodies, per source and option.
    assert_eq!(checked, 2 * sources.len() * 19);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Recursion with a residue (D19), exceptions as written and classes with bodies (D21), calls
/// run element by element (D23: a callable by its hidden parameter, a call as written in a
/// lambda): their IR after every pass reads back, and holds the operations named.
#[test]
fn recursion_and_element_calls_read_back_after_every_pass() {
    let module = "\
import math
import array_vectorize as av

class RateError(ValueError):
    def __init__(self, band, rate):
        super().__init__(f\"band {band}: rate {rate}\")
        self.band = band

@av.vectorize
def gamma_shift(x):
    if x > 2.0:
        return (x - 1.0) * gamma_shift(x - 1.0)
    if x < 1.0:
        if x == math.floor(x):
            raise ValueError(f\"gamma pole at {x}\")
        return gamma_shift(x + 1.0) / x
    return math.gamma(x)

@av.vectorize
def falling_factorial(n, k):
    if k <= 0:
        return 1
    return n * falling_factorial(n - 1, k - 1)

@av.vectorize
def marginal_rate(income, band):
    if income < 0.0:
        raise RateError(band, income)
    return 0.2 * income if income < 5e4 else 0.4 * income
";
    let (mut failures, mut seen) = (vec![], String::new());
    let functions = compile_module(module, "rates.py", None).expect("the module parses");
    assert_eq!(functions.len(), 3);
    for f in functions {
        let Outcome::Ok(c) = f.outcome else {
            panic!("{} does not compile", f.qualname)
        };
        for ir in [&c.ir, &c.float_ir, &c.int_ir]
            .into_iter()
            .chain(c.mixed_ir.as_ref())
        {
            let text = ir.to_string();
            failures.extend(round_trip(&f.qualname, &text));
            seen.push_str(&text);
        }
    }
    let mut env = Env::new();
    env.insert("ND".into(), Binding::Unsupported("a NormalDist".into()));
    env.insert(
        "quote".into(),
        Binding::OpaqueCallable("a C function".into()),
    );
    env.insert("curve".into(), Binding::Unsupported("a function".into()));
    let sources = [
        // A method of an object, with a keyword (D23's lambda).
        "def f(x):\n    return 2.0 * ND.cdf(x, mu=1.0)\n",
        // A callable by its hidden parameter, on the lanes an `if` lets through.
        "def f(x):\n    if x > 0.0:\n        return quote(x, 2.0)\n    return x\n",
        // A method of a constructed object as written, over two lines, with a string holding
        // `)(`, and a list built in the lambda.
        "def f(x, y):\n    return curve(\")(\",\n                 3).at([x, y])\n",
    ];
    for source in sources {
        let options = Options {
            fallback: true,
            ..Options::default()
        };
        each_pass(source, &env, options, &mut |pass, f| {
            let text = f.to_string();
            failures.extend(round_trip(&format!("after {pass}"), &text));
            seen.push_str(&text);
        });
    }
    for op in [
        "= residue #",
        "= scalar_raised %",
        "= call_site #",
        "= call_site (lambda _vec_a0, _vec_k0: ND.cdf(_vec_a0, mu=_vec_k0))(",
        "= call_site (lambda _vec_a0_0, _vec_a0_1: curve(\")(\",\\n                 3).at([_vec_a0_0, _vec_a0_1]))(",
        "RateError(",
    ] {
        assert!(seen.contains(op), "no `{op}` in\n{seen}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pass_fixtures_ir_reads_back() {
    // Every IR section of a pass fixture (after `=== `, or an IR input) is printed text.
    let (mut failures, mut checked) = (vec![], 0);
    for path in files(&manifest().join("tests/fixtures/passes"), "txt") {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for section in text.split("; ir-format: ").skip(1) {
            let end = section.find("\n}\n").expect("a function ends with `}`") + 3;
            checked += 1;
            let ir = format!("; ir-format: {}", &section[..end]);
            failures.extend(round_trip(&name, &ir));
        }
    }
    assert!(checked >= 11, "only {checked} IR sections");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_corpus_reads_back() {
    let Ok(dir) = std::env::var("IR_TEXT_CORPUS") else {
        return;
    };
    let paths = files(Path::new(&dir), "ir");
    let mut failures = vec![];
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        failures.extend(round_trip(&path.display().to_string(), &text));
    }
    eprintln!(
        "{} functions read back, {} failed",
        paths.len(),
        failures.len()
    );
    assert!(!paths.is_empty(), "no *.ir file in {dir}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
