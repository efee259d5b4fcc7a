//! Loops: `for` over constant ranges and tables with carried variables and phis (`for_loop`,
//! D6), unpacking loop targets (`for_unpack`), `while` and the activity mask of every masked
//! loop (`while_loop`, D12), `for` over a `range` with per-lane bounds (`range_loop`), `break`,
//! `continue` and loops' `else:` (`exits`), loops that carry raises (`raises`, D11), and loops
//! unrolled when compiling because they make, change or run over containers (`unrolled`, D18),
//! and Python loops over sequences given per call (`given`, D14, D15).

pub(in crate::lower) mod exits;
pub(in crate::lower) mod for_loop;
pub(in crate::lower) mod for_unpack;
pub(in crate::lower) mod given;
pub(in crate::lower) mod raises;
pub(in crate::lower) mod range_loop;
pub(in crate::lower) mod unrolled;
pub(in crate::lower) mod while_loop;

use std::collections::BTreeSet;

use crate::ir::Value;
use crate::Map as HashMap;

/// The loop state of the lowering. Its fields are this family's; the others ask through the
/// methods below.
#[derive(Default)]
pub(in crate::lower) struct LoopState {
    /// Loops around the statement being lowered (`break` outside one was reported by validation).
    pub(in crate::lower::loops) depth: usize,
    /// How many loops around the code being lowered do not carry raises (their body holds no
    /// `raise`, `assert` or `try`, `loop_raise`): a raise there (a helper's) is reported (D11).
    pub(in crate::lower::loops) without_raises: usize,
    /// A raise was met inside a loop that does not carry raises (a helper's `raise` or
    /// `assert`): the innermost such loop is lowered again carrying them (`for_loop::lower_loop`).
    pub(in crate::lower::loops) raise_in_unprepared: bool,
    /// A `while` test evaluated again after the body recorded a raise site (D11, D12): the loop
    /// is lowered again with its test in its body (`while_loop`).
    pub(in crate::lower::loops) test_raised: bool,
    /// What belongs to the function being built.
    pub(in crate::lower::loops) function: FunctionLoops,
}

/// The loop state that describes values of the function being built, set aside while a helper
/// is lowered on its own (`calls::callee`).
#[derive(Default)]
pub(in crate::lower) struct FunctionLoops {
    /// Phis of variables first assigned inside a loop: reading one before the body assigns it
    /// would read the previous iteration's value, or nothing in the first.
    pub(in crate::lower::loops) undefined_phis: BTreeSet<Value>,
    /// Names first assigned a container (D18) in a loop's body, which no phi carries out of it
    /// (`for_loop.rs`, `loop_phis`).
    pub(in crate::lower::loops) containers_without_phi: BTreeSet<String>,
    /// Phis that carry a uniform value a raise site reads out of a loop (D14, `raises.rs`).
    pub(in crate::lower::loops) message_phis: BTreeSet<Value>,
    /// How the `Done` masks were built (`exits::MaskOp`): what `Lowerer::stopped` reads.
    pub(in crate::lower::loops) mask_ops: HashMap<Value, exits::MaskOp>,
}

impl LoopState {
    /// Whether the code being lowered is inside a loop.
    pub(in crate::lower) fn in_loop(&self) -> bool {
        self.depth > 0
    }

    /// How many loops lowered as loops enclose the code being lowered (an unrolled one is
    /// none, D18).
    pub(in crate::lower) fn depth(&self) -> usize {
        self.depth
    }

    /// Whether a loop around the code being lowered does not carry raises (D11).
    pub(in crate::lower) fn in_loop_without_raises(&self) -> bool {
        self.without_raises > 0
    }

    /// Notes a raise met inside a loop that does not carry raises: that loop is lowered again,
    /// carrying them.
    pub(in crate::lower) fn raise_met_unprepared(&mut self) {
        self.raise_in_unprepared = true;
    }

    /// Whether `v` is the phi of a variable its loop's body has not assigned yet.
    pub(in crate::lower) fn is_undefined_phi(&self, v: Value) -> bool {
        self.function.undefined_phis.contains(&v)
    }

    /// Whether `name` was first assigned a container in a loop's body, which no phi carries:
    /// where it may be undefined, it is not a value D20's flag can guard.
    pub(in crate::lower) fn is_container_without_phi(&self, name: &str) -> bool {
        self.function.containers_without_phi.contains(name)
    }

    /// Sets aside what belongs to the function being built, for a fresh one.
    pub(in crate::lower) fn set_aside(&mut self) -> FunctionLoops {
        std::mem::take(&mut self.function)
    }

    /// Restores what [`Self::set_aside`] set aside.
    pub(in crate::lower) fn restore(&mut self, function: FunctionLoops) {
        self.function = function;
    }
}
