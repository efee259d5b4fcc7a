//! The core's global allocator: mimalloc (v2), told before its first allocation never to
//! reserve an arena.
//!
//! A compile allocates and frees many small nodes (the parser's tree, the IR, pyast's `Expr`
//! trees, the printed names and lines); glibc's malloc, free and realloc took 36% of a 20-line
//! function's compile (1.09 M of 3.04 M instructions, docs/benchmarks.md "Compile time"), mimalloc
//! about a third of that. mimalloc v2 serves its segments (32 MiB of address space each,
//! committed as used) from arenas, and its first allocation reserved a 1 GiB arena that it never
//! gives back: under an address-space limit (`ulimit -v`) NumPy's next large allocation failed
//! (issue 28 item 6, tests/hardening/test_address_space.py). With arena allocation disallowed
//! (`mi_option_disallow_arena_alloc`) each segment is mapped from the OS on its own and unmapped
//! when its last block is freed, so the core holds only the segments of the threads that
//! allocate (the caller's and the compile thread's, src/host/stack.rs).

use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::{c_int, c_long};
use std::sync::atomic::{AtomicBool, Ordering};

use mimalloc::MiMalloc;

/// `mi_option_disallow_arena_alloc` in mimalloc v2's `mi_option_t` (include/mimalloc.h of
/// libmimalloc-sys 0.1.49, mimalloc 2.3.2); the crate's bindings do not name it.
const MI_OPTION_DISALLOW_ARENA_ALLOC: c_int = 27;

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
}

/// Whether the options are set: checked on every allocation, so that they are in force before
/// mimalloc's first segment whatever thread allocates first.
static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// mimalloc with its arenas disallowed (see the module doc).
pub struct Allocator;

#[inline(always)]
fn configure() {
    if !CONFIGURED.load(Ordering::Relaxed) {
        configure_now();
    }
}

#[cold]
#[inline(never)]
fn configure_now() {
    // Setting an option neither allocates nor takes a lock; two threads doing it at once set
    // the same value.
    unsafe { mi_option_set(MI_OPTION_DISALLOW_ARENA_ALLOC, 1) };
    CONFIGURED.store(true, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        configure();
        MiMalloc.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        configure();
        MiMalloc.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        MiMalloc.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        MiMalloc.realloc(ptr, layout, new_size)
    }
}
