//! Services for the hosts of the compiler (the import hook, the build backend, the binding):
//! content hashes and atomic writes for caches (`cache`), the source files of a tree that may
//! hold marked functions (`scan`), the large-stack thread every compile runs on (`stack`), the
//! global allocator (`allocator`); and for the runtime of generated code, the Horner kernel
//! (`kernels`), which the binding hands NumPy arrays read through their C interface
//! (`array_interface`), and `sin` and `cos` of a float64 buffer in one pass of the C
//! library's `sincos` (`trig`).

pub mod allocator;
pub mod array_interface;
pub mod cache;
pub mod kernels;
pub mod scan;
pub mod stack;
pub mod trig;
