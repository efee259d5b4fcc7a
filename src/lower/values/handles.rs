//! The handles of values that exist only while lowering, and what they stand for: several
//! results (D13, `tuples.rs`), the lists, tuples and dicts a function makes (D18,
//! `containers.rs`), a value that is None on some lanes (D20, `none_lanes.rs`). A handle is a
//! value no instruction may read: only its items reach the IR (`Lowerer::reject_tuple_uses`).

use crate::diagnostics::SourceId;
use crate::ir::eval::num_eq;
use crate::ir::{Const, Value};

/// The positions of a tuple and the source it was made at (a `return`, or a call returning one).
/// A local container (D18: a list, a tuple or a dict the function builds) is one too, with
/// what it is in `container`.
#[derive(Debug, Clone)]
pub(in crate::lower) struct TupleValue {
    pub(in crate::lower) items: Vec<Value>,
    pub(in crate::lower) site: Site,
    pub(in crate::lower) container: Container,
    /// Made by the function (a display, a comprehension, `list()`: D18), not a helper's or a
    /// `return`'s several values (D13).
    pub(in crate::lower) local: bool,
}

/// Where a returned value comes from: source, byte range.
pub(in crate::lower) type Site = (SourceId, usize, usize);

/// What a handle stands for.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::lower) enum Container {
    /// A tuple: a display, or several results (D13).
    Tuple,
    /// A list, by identity (None: different lists on different elements; never changed).
    List(Option<usize>),
    /// A dict: its keys in insertion order (its items are the values), and its identity.
    Dict(Option<usize>, Vec<Key>),
    /// What `zip`, `enumerate` and a dict's `keys()`, `values()` and `items()`
    /// give: something to iterate over, measure or convert, never indexed.
    View,
    /// Not a container: a value that is None on some lanes (D20, `none_lanes.rs`), its items
    /// the value and the mask of the None lanes.
    MaybeNone,
}

/// A dict key: a number (keys equal under `==` are one key) or a string.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::lower) enum Key {
    Num(Const),
    Str(String),
}

impl Key {
    /// Python's `==` between two keys (numbers across bool, int and float).
    pub(in crate::lower) fn same(&self, other: &Key) -> bool {
        match (self, other) {
            (Key::Num(a), Key::Num(b)) => num_eq(a, b) == Some(true),
            (Key::Str(a), Key::Str(b)) => a == b,
            _ => false,
        }
    }

    /// The key as Python writes it.
    pub(in crate::lower) fn repr(&self) -> String {
        match self {
            Key::Num(c) => c.python_repr(),
            Key::Str(s) => format!("{s:?}").replace('"', "'"),
        }
    }
}

/// Why a handle reached the IR: a container read as a number.
pub(in crate::lower) const MISUSED: &str = "a list, tuple or dict is used here as a number (D18): a container can be indexed, iterated, unpacked, measured with len(), searched with `in` or bisect, and reduced with sum, min, max, any or all; a tuple can also be returned";

/// Most items a container may hold.
pub(in crate::lower) const MAX_ITEMS: usize = 4096;

/// Why a value that may be None reached the IR (D20).
pub(in crate::lower) const NONE_MISUSED: &str = "a value that is None on some elements (a helper that can end without returning a number: D20) is used here in a way that is not checked per element; only arithmetic, comparisons, math functions, numeric builtins, `is None` and truth tests are";

/// Adds `key: value` to `entries`, replacing the value of an equal key in its place (CPython's
/// dict: `{1: a, 1.0: b}` is `{1: b}`).
pub(in crate::lower) fn insert_entry(entries: &mut Vec<(Key, Value)>, key: Key, value: Value) {
    match entries.iter_mut().find(|(k, _)| k.same(&key)) {
        Some(entry) => entry.1 = value,
        None => entries.push((key, value)),
    }
}

/// Why a handle read by the IR cannot be: a local container (D18), a value that may be None
/// (D20), or a tuple result (D13).
pub(in crate::lower) fn misuse_message(t: &TupleValue) -> &'static str {
    if t.container == Container::MaybeNone {
        NONE_MISUSED
    } else if t.local {
        MISUSED
    } else {
        "these several values are used as one value: a tuple result can only be returned, unpacked (`a, b = f(x)`) or indexed with a constant (`r[0]`), and cannot be returned from inside a loop"
    }
}
