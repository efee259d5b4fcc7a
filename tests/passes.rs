//! Per-pass fixtures in IR text, like cranelift's filetests.
//!
//! Each `tests/fixtures/passes/*.txt` holds a header naming the pass (`# pass: fold`; the float
//! fast path's passes are `float fold` and so on, see `pipeline::compile_observed`) and
//! optionally options (`# options: protect_domains`), then a function, then a line `=== <pass>`
//! followed by the IR expected after that pass. The function's free names resolve in a fixed
//! environment: `math`, and the builtins. `UPDATE_SNAPSHOTS=1 cargo test` rewrites the expected
//! IR: review the diff, never edit it by hand.

use std::path::{Path, PathBuf};

use array_vectorize_core::env::{Binding, Env};
use array_vectorize_core::frontend::Input;
use array_vectorize_core::pipeline::{compile_observed, Options, Request};

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

/// The fixture's parts: pass name, options, function source, expected IR (if any yet).
fn parse(text: &str) -> (String, Options, String, Option<String>) {
    let mut pass = None;
    let mut options = Options::default();
    let mut source = String::new();
    let mut lines = text.lines();
    for line in lines.by_ref() {
        if let Some(p) = line.strip_prefix("# pass: ") {
            pass = Some(p.trim().to_string());
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
        } else {
            source.push_str(line);
            source.push('\n');
        }
    }
    let rest: Vec<&str> = lines.collect();
    let expected = (!rest.is_empty()).then(|| rest.join("\n") + "\n");
    let source = source.trim_start_matches('\n').to_string();
    (pass.expect("a `# pass:` line"), options, source, expected)
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
        let (pass, options, source, expected) = parse(&text);
        let got = ir_after(&pass, options, &source);
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
