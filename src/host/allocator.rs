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
//!
//! The `mimalloc` crate's `GlobalAlloc` takes mimalloc's aligned entry points for every
//! allocation; a layout whose alignment mimalloc's plain blocks already give (at most 16 and at
//! most the size: mimalloc's own `mi_malloc_is_naturally_aligned`) goes to `mi_malloc`,
//! `mi_zalloc` and `mi_realloc` instead, which skip the alignment checks (a tenth of the
//! allocator's instructions in a compile, docs/benchmarks.md "Compile time").

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::os::raw::{c_int, c_long};
use std::sync::atomic::{AtomicBool, Ordering};

use mimalloc::MiMalloc;

/// `mi_option_disallow_arena_alloc` in mimalloc v2's `mi_option_t` (include/mimalloc.h of
/// libmimalloc-sys 0.1.49, mimalloc 2.3.2); the crate's bindings do not name it.
const MI_OPTION_DISALLOW_ARENA_ALLOC: c_int = 27;

/// mimalloc's `MI_MAX_ALIGN_SIZE` (include/mimalloc/types.h): a plain block of `size` bytes is
/// aligned to any power of two up to it that is at most `size`.
const MI_MAX_ALIGN_SIZE: usize = 16;

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_malloc(size: usize) -> *mut c_void;
    fn mi_zalloc(size: usize) -> *mut c_void;
    fn mi_realloc(p: *mut c_void, newsize: usize) -> *mut c_void;
}

/// Whether a plain mimalloc block of `size` bytes is aligned to `align` (mimalloc's
/// `mi_malloc_is_naturally_aligned` for alignments up to `MI_MAX_ALIGN_SIZE`).
#[inline(always)]
fn plain(size: usize, align: usize) -> bool {
    align <= MI_MAX_ALIGN_SIZE && align <= size
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
        if plain(layout.size(), layout.align()) {
            return mi_malloc(layout.size()).cast();
        }
        MiMalloc.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        configure();
        if plain(layout.size(), layout.align()) {
            return mi_zalloc(layout.size()).cast();
        }
        MiMalloc.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        MiMalloc.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A block that stays where it is was aligned already; a moved one is a plain block of
        // `new_size` bytes.
        if plain(new_size, layout.align()) {
            return mi_realloc(ptr.cast(), new_size).cast();
        }
        MiMalloc.realloc(ptr, layout, new_size)
    }
}

#[cfg(test)]
mod tests {
    use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, Layout};

    /// Every layout gets a block of its alignment, through the plain entry points and the
    /// aligned ones alike, and `realloc` keeps the contents.
    #[test]
    fn blocks_are_aligned_as_asked() {
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 3, 7, 8, 12, 16, 24, 40, 100, 1000, 70_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = alloc(layout);
                    assert!(!p.is_null() && p as usize % align == 0, "{size} {align}");
                    for i in 0..size {
                        *p.add(i) = i as u8;
                    }
                    // Grown, then shrunk: each block aligned, the first bytes kept.
                    let mut block = (p, size);
                    for new_size in [size * 3 + 5, size / 2 + 1] {
                        let q = realloc(
                            block.0,
                            Layout::from_size_align(block.1, align).unwrap(),
                            new_size,
                        );
                        assert!(
                            !q.is_null() && q as usize % align == 0,
                            "{size} {align} {new_size}"
                        );
                        for i in 0..size.min(new_size) {
                            assert_eq!(*q.add(i), i as u8);
                        }
                        block = (q, new_size);
                    }
                    dealloc(block.0, Layout::from_size_align(block.1, align).unwrap());
                    let z = alloc_zeroed(layout);
                    assert!(z as usize % align == 0 && (0..size).all(|i| *z.add(i) == 0));
                    dealloc(z, layout);
                }
            }
        }
    }
}
