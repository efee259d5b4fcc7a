//! Control flow that is not a loop: the array `if`, early returns and merges (`array_if`, D1),
//! the Python-level `if` on uniform or loop-index conditions (`scalar_if`, D6, D14), and names
//! and returns missing on some lanes (`unbound`, D20).

pub(in crate::lower) mod array_if;
pub(in crate::lower) mod scalar_if;
pub(in crate::lower) mod unbound;

/// The state of this family: the names tracked for the lanes that assigned them (D20). Its
/// fields are this family's; the others ask through `unbound.rs`'s methods.
#[derive(Default)]
pub(in crate::lower) struct ControlState {
    pub(in crate::lower) unbound: unbound::Unbound,
}
