//! Loops: `for` over constant ranges and tables with carried variables and phis (`for_loop`,
//! D6), unpacking loop targets (`for_unpack`), `while` and the activity mask of every masked
//! loop (`while_loop`, D12), `for` over a `range` with per-lane bounds (`range_loop`), `break`,
//! `continue` and loops' `else:` (`exits`), loops that carry raises (`raises`, D11), and loops
//! unrolled when compiling because they make, change or run over containers (`unrolled`, D18).

pub(in crate::lower) mod exits;
pub(in crate::lower) mod for_loop;
pub(in crate::lower) mod for_unpack;
pub(in crate::lower) mod raises;
pub(in crate::lower) mod range_loop;
pub(in crate::lower) mod unrolled;
pub(in crate::lower) mod while_loop;
