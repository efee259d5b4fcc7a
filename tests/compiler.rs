//! Fixture tests for the whole compiler, stage by stage, without Python.
//!
//! Each `tests/fixtures/compiler/*.py` is a module compiled statically (`module::compile_module`).
//! A fixture whose text has an `# ERRORS:` block expects exactly those diagnostics
//! (`line:col: message`, one per comment line). Any other fixture must compile; its optimized IR
//! and generated source are compared with `<name>.snap` beside it. `UPDATE_SNAPSHOTS=1 cargo test`
//! rewrites the snapshots: review the diff, never edit a snapshot by hand.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use array_vectorize_core::static_module::{compile_module, Outcome};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compiler");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

fn expected_errors(text: &str) -> Option<Vec<String>> {
    let start = text.find("# ERRORS:")?;
    Some(
        text[start..]
            .lines()
            .skip(1)
            .map_while(|l| l.strip_prefix("# "))
            .map(str::to_string)
            .collect(),
    )
}

fn snapshot(path: &Path, text: &str) -> String {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let functions =
        compile_module(text, &name, None).unwrap_or_else(|e| panic!("{name}: {}", e.text));
    assert!(!functions.is_empty(), "{name}: no marked function");
    let mut out = String::new();
    for f in functions {
        match f.outcome {
            Outcome::Ok(c) => {
                let _ = writeln!(
                    out,
                    "=== {} (line {}) ===\n--- ir ---\n{}--- source ---\n{}",
                    f.qualname, f.line, c.ir, c.source
                );
                let _ = writeln!(out, "--- assumptions ---");
                for a in &c.assumptions {
                    let _ = writeln!(out, "{}: {:?}", a.name, a.binding);
                }
            }
            Outcome::Deferred(names) => panic!("{name}: {} deferred on {names:?}", f.qualname),
            Outcome::Error(d) => panic!(
                "{name}: {} failed:\n{}",
                f.qualname,
                d.iter()
                    .map(|r| r.text.clone())
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        }
    }
    out
}

#[test]
fn compiler_fixtures() {
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok();
    let mut failures = vec![];
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Some(expected) = expected_errors(&text) {
            let functions = compile_module(&text, &name, None).unwrap();
            let got: Vec<String> = functions
                .iter()
                .flat_map(|f| match &f.outcome {
                    Outcome::Error(d) => d
                        .iter()
                        .map(|r| format!("{}:{}: {}", r.line, r.col, r.message))
                        .collect(),
                    _ => vec![format!("{} compiled", f.qualname)],
                })
                .collect();
            if got != expected {
                failures.push(format!(
                    "{name}: expected\n  {}\ngot\n  {}",
                    expected.join("\n  "),
                    got.join("\n  ")
                ));
            }
            continue;
        }
        let snap_path = path.with_extension("snap");
        let got = snapshot(&path, &text);
        // Generating twice gives the same text.
        assert_eq!(
            got,
            snapshot(&path, &text),
            "{name}: compilation is not deterministic"
        );
        if update {
            std::fs::write(&snap_path, &got).unwrap();
            continue;
        }
        match std::fs::read_to_string(&snap_path) {
            Ok(expected) if expected == got => {}
            Ok(expected) => failures.push(format!(
                "{name}: snapshot differs\n--- expected ---\n{expected}\n--- got ---\n{got}"
            )),
            Err(_) => failures.push(format!(
                "{name}: no snapshot; run UPDATE_SNAPSHOTS=1 cargo test and review it"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
