//! The thread every compile runs on: a known, large stack, whatever thread Python calls from
//! (threads started by `threading` after `threading.stack_size(256 * 1024)` have 256 KiB).
//!
//! The parser's tree and most passes are recursive; `source::Limits` bounds how deep they go
//! before parsing, and this stack is what those bounds are measured against.

/// Stack of the compile thread. Reserved address space, committed only as it is used.
pub const COMPILE_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Runs `f` on a thread with a [`COMPILE_STACK_BYTES`] stack and returns its result; a panic in
/// `f` resumes on the calling thread (where `python.rs` turns it into `InternalError`). When no
/// such thread can be started (address space exhausted), `f` runs on the calling thread.
pub fn on_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let slot = std::sync::Mutex::new(Some(f));
    let run = || {
        let f = slot.lock().ok().and_then(|mut s| s.take());
        f.map(|f| f())
    };
    let result = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("array-vectorize-compile".into())
            .stack_size(COMPILE_STACK_BYTES)
            .spawn_scoped(scope, run);
        match spawned {
            Ok(handle) => match handle.join() {
                Ok(v) => v,
                Err(payload) => std::panic::resume_unwind(payload),
            },
            Err(_) => run(),
        }
    });
    match result {
        Some(v) => v,
        // Unreachable: the closure is taken exactly once, by the thread or by the fallback.
        None => panic!("the compile closure ran twice"),
    }
}

#[cfg(test)]
mod tests {
    use super::on_large_stack;
    use crate::static_module::{compile_module, Outcome};

    /// A thread with a 256 KiB stack (Python's `threading.stack_size(256 * 1024)`) compiling
    /// functions at the pre-parse limits and beyond them: the compile thread's stack holds.
    #[test]
    fn deep_functions_compile_from_a_small_stack() {
        let deep = |body: String| {
            format!("from array_vectorize import vectorize\n\n@vectorize\ndef f(x):\n{body}")
        };
        let mut elifs = String::from("    if x == 0.0:\n        return 0.0\n");
        for i in 1..1000 {
            elifs.push_str(&format!("    elif x == {i}.0:\n        return {i}.5\n"));
        }
        elifs.push_str("    return -1.0\n");
        let cases = [
            (deep(format!("    return {}x\n", "not ".repeat(999))), true),
            (
                deep(format!("    return x{}\n", " + 1.0".repeat(999))),
                true,
            ),
            (deep(elifs), true),
            (
                deep(format!("    return x{}\n", ".real".repeat(30_000))),
                false,
            ),
        ];
        let small = std::thread::Builder::new().stack_size(256 * 1024).spawn(move || {
            cases
                .iter()
                .map(|(text, ok)| {
                    let outcome = on_large_stack(|| compile_module(text, "t.py", None));
                    let compiled = matches!(outcome.as_deref(), Ok([f]) if matches!(f.outcome, Outcome::Ok(_)));
                    compiled == *ok
                })
                .collect::<Vec<bool>>()
        });
        let results = small.expect("thread starts").join().expect("no panic");
        assert_eq!(results, vec![true; 4]);
    }
}
