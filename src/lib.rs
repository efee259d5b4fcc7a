//! array-vectorize's compiler core: scalar Python source in, Array API source out.
//!
//! `pipeline` runs the stages in order: `frontend` (cut, parse, `extract`, `validate`), `lower`,
//! the `analysis` and `rewrite` passes over the `ir`, `codegen`. `static_module` compiles every
//! marked function of a module from its text alone; `host` serves the import hook and the build
//! backend (cache hashes and atomic writes, the source-tree scan, the compile thread's stack).
//! Nothing here depends on Python: the PyO3 binding is `python.rs`, behind the `python`
//! feature.

pub mod analysis;
pub mod codegen;
pub mod diagnostics;
pub mod env;
pub mod frontend;
pub mod host;
pub mod ir;
pub mod lower;
pub mod pipeline;
pub mod rewrite;
pub mod static_module;

#[cfg(feature = "python")]
mod python;

/// The hash map of the compiler's passes: keys are small integers and strings it made itself,
/// so the fast non-DoS-resistant hasher is the right one.
pub(crate) type Map<K, V> = rustc_hash::FxHashMap<K, V>;

// mimalloc without arenas (src/host/allocator.rs): a third of the system allocator's cost on
// the compile's many small nodes, and no address space kept (issue 28 item 6).
#[global_allocator]
static ALLOCATOR: host::allocator::Allocator = host::allocator::Allocator;

/// Identifies the compiler's output format: changes whenever the compiler's source changes
/// (computed by build.rs), so caches keyed by it never serve code from another compiler.
pub const BUILD_ID: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("ARRAY_VECTORIZE_SOURCE_HASH")
);
