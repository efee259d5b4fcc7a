//! The thread every compile runs on: a known, large stack, whatever thread Python calls from
//! (threads started by `threading` after `threading.stack_size(256 * 1024)` have 256 KiB).
//!
//! The parser's tree and most passes are recursive; `source::Limits` bounds how deep they go
//! before parsing, and this stack is what those bounds are measured against.
//!
//! A compile thread is kept for the next compile once it is done, for [`IDLE_FOR`]: starting
//! one per compile (mapping, then unmapping its 256 MiB stack, and faulting in the pages it
//! touches anew) cost ~45 us of the caller's CPU time and more on the compile thread, a quarter
//! of a 20-line function's compile by CPU time (docs/benchmarks.md). After [`IDLE_FOR`] without
//! a compile it ends, so that a process that compiled once holds no thread and no stack after it
//! (a multi-threaded process is warned against `fork()` by Python 3.12). Under an address-space
//! limit (`ulimit -v`) none is kept: its stack would hold 256 MiB of address space that the
//! program's next allocation may need (issue 28 item 6); each compile starts and joins its own.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Stack of the compile thread. Reserved address space, committed only as it is used.
pub const COMPILE_STACK_BYTES: usize = 256 * 1024 * 1024;

/// How long an idle compile thread waits for the next compile before it ends.
pub const IDLE_FOR: Duration = Duration::from_millis(200);

type Job = Box<dyn FnOnce() + Send>;

/// An idle compile thread: where to send it a job, which thread it is, and which process
/// started it (after `fork()` the child has the entry but not the thread).
struct Worker {
    jobs: Sender<Job>,
    id: u64,
    pid: u32,
}

/// The compile threads waiting for a job. A compile takes one out (so that it cannot end while
/// its job is on the way) and puts it back when the job is done.
static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());

fn idle_workers() -> MutexGuard<'static, Vec<Worker>> {
    // A panic never happens while the lock is held (jobs run outside it): poison is harmless.
    IDLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// An idle compile thread of this process, or a new one; None when none can be started
/// (address space exhausted).
fn take_worker() -> Option<Worker> {
    let pid = std::process::id();
    let mut idle = idle_workers();
    // Entries inherited through fork() name threads this process does not have.
    idle.retain(|w| w.pid == pid);
    if let Some(w) = idle.pop() {
        return Some(w);
    }
    drop(idle);
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (jobs, inbox) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("array-vectorize-compile".into())
        .stack_size(COMPILE_STACK_BYTES)
        .spawn(move || loop {
            match inbox.recv_timeout(IDLE_FOR) {
                Ok(job) => job(),
                Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => {
                    let mut idle = idle_workers();
                    // Still idle (no compile took it out): it ends. Taken out: a job is coming.
                    if let Some(at) = idle.iter().position(|w| w.id == id) {
                        idle.swap_remove(at);
                        return;
                    }
                }
            }
        })
        .ok()?;
    Some(Worker { jobs, id, pid })
}

/// Whether the soft address-space limit in `/proc/self/limits`' text is `unlimited`.
fn address_space_unlimited(limits: &str) -> bool {
    limits
        .lines()
        .find(|l| l.starts_with("Max address space"))
        .is_some_and(|l| l.split_whitespace().nth(3) == Some("unlimited"))
}

/// Whether compile threads are kept: only without an address-space limit, read once (and where
/// it cannot be read, never).
fn keep_threads() -> bool {
    static KEEP: OnceLock<bool> = OnceLock::new();
    *KEEP.get_or_init(|| {
        std::fs::read_to_string("/proc/self/limits").is_ok_and(|t| address_space_unlimited(&t))
    })
}

/// Runs `job` on a compile thread started for it alone, joined (its stack unmapped) before
/// returning; on the calling thread when none can be started.
fn run_on_new_thread(job: Job) {
    let slot = Mutex::new(Some(job));
    let run = || {
        if let Some(job) = slot.lock().ok().and_then(|mut s| s.take()) {
            job();
        }
    };
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("array-vectorize-compile".into())
            .stack_size(COMPILE_STACK_BYTES)
            .spawn_scoped(scope, run);
        match spawned {
            // The job catches its own panics: the thread ends normally.
            Ok(handle) => drop(handle.join()),
            Err(_) => run(),
        }
    });
}

/// Runs `f` on a compile thread (a [`COMPILE_STACK_BYTES`] stack) and returns its result; a
/// panic in `f` resumes on the calling thread (where `python.rs` turns it into
/// `InternalError`). When no compile thread can be started, `f` runs on the calling thread.
pub fn on_large_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    type Outcome<T> = Result<T, Box<dyn Any + Send>>;
    let (done, result) = mpsc::sync_channel::<Outcome<T>>(1);
    let job: Job = Box::new(move || {
        // A kept thread outlives the job: a panic is caught here and resumed by the caller.
        let _ = done.send(catch_unwind(AssertUnwindSafe(f)));
    });
    if !keep_threads() {
        run_on_new_thread(job);
        return match result.recv() {
            Ok(Ok(v)) => v,
            Ok(Err(payload)) => resume_unwind(payload),
            Err(_) => panic!("the compile thread ended without a result"),
        };
    }
    let outcome = match take_worker() {
        Some(worker) => match worker.jobs.send(job) {
            Ok(()) => {
                let outcome = result.recv();
                idle_workers().push(worker);
                outcome
            }
            // Unreachable: a taken-out thread waits for its job (see take_worker).
            Err(mpsc::SendError(job)) => {
                job();
                result.recv()
            }
        },
        None => {
            job();
            result.recv()
        }
    };
    match outcome {
        Ok(Ok(v)) => v,
        Ok(Err(payload)) => resume_unwind(payload),
        // Unreachable: the job always sends its outcome before it is dropped.
        Err(_) => panic!("the compile thread ended without a result"),
    }
}

#[cfg(test)]
mod tests {
    use super::{address_space_unlimited, on_large_stack};
    use crate::static_module::{compile_module, Outcome};

    #[test]
    fn threads_are_kept_only_without_an_address_space_limit() {
        let limits = |soft: &str| {
            format!(
                "Limit                     Soft Limit           Hard Limit           Units     \n\
                 Max stack size            8388608              unlimited            bytes     \n\
                 Max address space         {soft:<20} unlimited            bytes     \n"
            )
        };
        assert!(address_space_unlimited(&limits("unlimited")));
        assert!(!address_space_unlimited(&limits("1400000000")));
        assert!(!address_space_unlimited(
            "Max stack size  unlimited  unlimited  bytes\n"
        ));
    }

    /// A panic on the compile thread resumes on the caller with its payload; the compile thread
    /// survives it, and the next compile runs on a compile thread again.
    #[test]
    fn a_panic_resumes_on_the_caller_and_compiles_go_on() {
        let caught = std::panic::catch_unwind(|| on_large_stack(|| -> u32 { panic!("boom 7") }));
        let payload = caught.expect_err("the panic reaches the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom 7"));
        for _ in 0..3 {
            let name = on_large_stack(|| std::thread::current().name().map(str::to_owned));
            assert_eq!(name.as_deref(), Some("array-vectorize-compile"));
        }
    }

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
                .into_iter()
                .map(|(text, ok)| {
                    let outcome = on_large_stack(move || compile_module(&text, "t.py", None));
                    let compiled = matches!(outcome.as_deref(), Ok([f]) if matches!(f.outcome, Outcome::Ok(_)));
                    compiled == ok
                })
                .collect::<Vec<bool>>()
        });
        let results = small.expect("thread starts").join().expect("no panic");
        assert_eq!(results, vec![true; 4]);
    }
}
