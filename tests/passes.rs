//! Per-pass fixtures, like cranelift's filetests: IR in, IR out.
//!
//! Each `tests/fixtures/passes/*.txt` starts with a header naming the pass (`# pass: fold`), then
//! its input, then a line `=== <pass>` followed by the IR expected after it.
//!
//! * A rewrite or analysis fixture (every file but `lower_*.txt`) states its input as IR text
//!   (src/ir/read.rs) and the pass named runs alone on it: `kinds` (kind inference), `fold` (with
//!   `loop_return`, as the pipeline runs it), `loop_return`, `cse`, `dce`, `legalize`, `broadcast`.
//!   `# params: float` (or `int`, `bool`, `num`, one per parameter or one for all) gives the
//!   parameters' kinds those passes are told (default: unknown, the exact body's). The output
//!   must pass the IR verifier. Nothing else runs, so a fixture of `fold` shows what fold does,
//!   however the pipeline around it changes.
//! * A lowering fixture (`lower_*.txt`, `# pass: lower`) states Python source: lowering is the
//!   pass under test. Optional `# options: protect_domains`. The function's free names resolve in
//!   a fixed environment: `math`, and the builtins.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test` rewrites the expected IR: review the diff, never edit it by
//! hand.

use std::path::{Path, PathBuf};

use array_vectorize_core::analysis::kinds::infer_kinds_with;
use array_vectorize_core::env::{Binding, Env};
use array_vectorize_core::frontend::Input;
use array_vectorize_core::ir::read::read;
use array_vectorize_core::ir::verify::{verify, Kinds};
use array_vectorize_core::ir::{Function, Kind};
use array_vectorize_core::pipeline::{compile_observed, Options, Request};
use array_vectorize_core::rewrite::{broadcast, cse, dce, fold, legalize, loop_return};

const BUILTINS: &[&str] = &[
    "abs", "bool", "float", "int", "max", "min", "pow", "range", "round",
];

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/passes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

fn env() -> Env {
    let mut env = Env::new();
    env.insert("math".into(), Binding::MathModule);
    for b in BUILTINS {
        env.insert(b.to_string(), Binding::Builtin(b.to_string()));
    }
    env
}

/// A fixture's parts.
struct Fixture {
    pass: String,
    options: Options,
    /// `# params:` kinds, as written.
    params: Vec<String>,
    /// Python source (a lowering fixture) or IR text.
    input: String,
    expected: Option<String>,
}

fn parse(text: &str) -> Fixture {
    let mut pass = None;
    let mut options = Options::default();
    let mut params = vec![];
    let mut source = String::new();
    let mut lines = text.lines();
    for line in lines.by_ref() {
        if let Some(p) = line.strip_prefix("# pass: ") {
            pass = Some(p.trim().to_string());
        } else if let Some(p) = line.strip_prefix("# params: ") {
            params = p.split(',').map(|k| k.trim().to_string()).collect();
        } else if let Some(o) = line.strip_prefix("# options: ") {
            for opt in o.split(',').map(str::trim) {
                match opt {
                    "protect_domains" => options.protect_domains = true,
                    "fallback" => options.fallback = true,
                    other => panic!("unknown option {other:?}"),
                }
            }
        } else if line.starts_with("=== ") {
            break;
        } else if source.is_empty() && line.starts_with('#') {
            // A comment of the header: what the fixture shows.
        } else {
            source.push_str(line);
            source.push('\n');
        }
    }
    let rest: Vec<&str> = lines.collect();
    let expected = (!rest.is_empty()).then(|| rest.join("\n") + "\n");
    Fixture {
        pass: pass.expect("a `# pass:` line"),
        options,
        params,
        input: source.trim_start_matches('\n').to_string(),
        expected,
    }
}

/// The kinds `# params:` gives the function's parameters (unknown where it gives none).
fn param_kinds(written: &[String], f: &Function) -> Vec<Kind> {
    let kind = |k: &str| match k {
        "float" => Kind::Float,
        "int" => Kind::Int,
        "bool" => Kind::Bool,
        "num" => Kind::Unknown,
        other => panic!("unknown kind {other:?} in `# params:`"),
    };
    match written {
        [] => vec![Kind::Unknown; f.params.len()],
        [one] => vec![kind(one); f.params.len()],
        many => many.iter().map(|k| kind(k)).collect(),
    }
}

/// The IR after `pass` run alone on the IR text `input`; verified.
fn run_alone(pass: &str, params: &[String], input: &str) -> String {
    let mut f = read(input).unwrap_or_else(|e| panic!("the input IR does not read: {e}"));
    let kinds = param_kinds(params, &f);
    // A fixture's function calls no helper (D7): a call's result kind is unknown.
    let mut calls = |_: usize, _: &[Kind]| Kind::Unknown;
    let verified = match pass {
        "kinds" => {
            infer_kinds_with(&mut f, &kinds, &mut calls);
            Kinds::Fresh
        }
        "fold" => {
            fold::run(&mut f, &kinds, &mut calls);
            Kinds::Fresh
        }
        "loop_return" => {
            loop_return::run(&mut f);
            Kinds::Operations
        }
        "cse" => {
            cse::run(&mut f);
            Kinds::Operations
        }
        "dce" => {
            dce::run(&mut f);
            Kinds::Operations
        }
        "legalize" => {
            legalize::legalize(&mut f, &kinds, &mut calls);
            Kinds::Fresh
        }
        "broadcast" => {
            broadcast::broadcast_result(&mut f);
            Kinds::Fresh
        }
        other => panic!("no pass named {other:?} runs alone"),
    };
    verify(&f, verified).unwrap_or_else(|e| panic!("invalid IR after {pass}: {e}\n{f}"));
    f.to_string()
}

fn ir_after(pass: &str, options: Options, source: &str) -> String {
    let name = source
        .strip_prefix("def ")
        .and_then(|s| s.split('(').next())
        .expect("the fixture's function starts with `def name(`");
    let env = env();
    let req = Request {
        input: Input::Text {
            source,
            path: "fixture.py",
            first_line: 1,
        },
        name,
        env: &env,
        options,
    };
    let mut seen = None;
    let mut observe = |p: &str, f: &array_vectorize_core::ir::Function| {
        if p == pass && seen.is_none() {
            seen = Some(f.to_string());
        }
    };
    if let Err(e) = compile_observed(&req, &mut observe) {
        panic!("{name}: does not compile: {e:?}");
    }
    seen.unwrap_or_else(|| panic!("no pass named {pass:?}"))
}

#[test]
fn pass_fixtures() {
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok();
    let files = fixtures();
    assert!(!files.is_empty(), "no pass fixtures");
    let mut failures = vec![];
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Fixture {
            pass,
            options,
            params,
            input,
            expected,
        } = parse(&text);
        let got = if input.starts_with("; ir-format:") {
            run_alone(&pass, &params, &input)
        } else {
            assert_eq!(
                pass,
                "lower",
                "{}: only lowering reads source",
                path.display()
            );
            ir_after(&pass, options, &input)
        };
        if expected.as_deref() == Some(got.as_str()) {
            continue;
        }
        if update {
            let head = text.split("\n=== ").next().unwrap_or(&text).trim_end();
            std::fs::write(&path, format!("{head}\n=== {pass}\n{got}")).unwrap();
        } else {
            failures.push(format!(
                "{}: IR after {pass} differs (UPDATE_SNAPSHOTS=1 to accept)\n--- expected\n{}--- got\n{got}",
                path.display(),
                expected.unwrap_or_default()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
