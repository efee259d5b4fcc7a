//! Rewrites: IR-to-IR passes, one per file (the analyses they read are in
//! [`crate::analysis`]). The pipeline runs them in order: `fold` (with `loop_return`), `cse`, `dce`, `legalize`,
//! `broadcast`.

pub mod broadcast;
pub mod cse;
pub mod dce;
pub mod fold;
pub mod legalize;
pub mod loop_return;

use crate::ir::{walk_insts_mut, Function, Value};

/// A table keyed by values: values are numbered densely from 0, so a vector indexed by the
/// value, not a hash table (the passes ask per operand of every operation).
#[derive(Debug, Clone)]
pub(crate) struct ValueMap<T> {
    slots: Vec<Option<T>>,
    len: usize,
}

impl<T> ValueMap<T> {
    /// An empty table with room for the values of `func` (a value made later still fits).
    pub(crate) fn for_values(func: &Function) -> Self {
        let mut slots = Vec::new();
        slots.resize_with(func.values.len(), || None);
        ValueMap { slots, len: 0 }
    }

    pub(crate) fn get(&self, v: Value) -> Option<&T> {
        self.slots.get(v.index()).and_then(Option::as_ref)
    }

    pub(crate) fn insert(&mut self, v: Value, t: T) {
        let i = v.index();
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        if self.slots[i].replace(t).is_none() {
            self.len += 1;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Follows a chain of replacements to its end.
pub(crate) fn resolve(map: &ValueMap<Value>, mut v: Value) -> Value {
    while let Some(&next) = map.get(v) {
        if next == v {
            break;
        }
        v = next;
    }
    v
}

/// Rewrites every read of a replaced value (operands, phis, if-merges, the return).
pub(crate) fn rename_all(func: &mut Function, map: &ValueMap<Value>) {
    if map.is_empty() {
        return;
    }
    walk_insts_mut(&mut func.body, &mut |inst| {
        inst.map_reads(|v| resolve(map, v));
    });
    func.map_exit_values(|v| resolve(map, v));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacements_are_followed_to_their_end() {
        let mut map = ValueMap {
            slots: vec![],
            len: 0,
        };
        map.insert(Value(3), Value(2));
        map.insert(Value(2), Value(1));
        map.insert(Value(1), Value(1));
        assert_eq!(resolve(&map, Value(3)), Value(1));
        assert_eq!(resolve(&map, Value(7)), Value(7));
        assert_eq!(resolve(&map, Value(70)), Value(70));
        assert!(!map.is_empty());
    }
}
