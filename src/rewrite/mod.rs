//! Rewrites: IR-to-IR passes, one per file (the analyses they read are in
//! [`crate::analysis`]). The pipeline runs them in order: `fold` (with `loop_return`), `cse`, `dce`, `legalize`,
//! `broadcast`.

pub mod broadcast;
pub mod cse;
pub mod dce;
pub mod fold;
pub mod legalize;
pub mod loop_return;

use crate::Map as HashMap;

use crate::ir::{walk_insts_mut, Function, Value};

/// Follows a chain of replacements to its end.
pub(crate) fn resolve(map: &HashMap<Value, Value>, mut v: Value) -> Value {
    while let Some(&next) = map.get(&v) {
        if next == v {
            break;
        }
        v = next;
    }
    v
}

/// Rewrites every read of a replaced value (operands, phis, if-merges, the return).
pub(crate) fn rename_all(func: &mut Function, map: &HashMap<Value, Value>) {
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
        let mut map = HashMap::default();
        map.insert(Value(3), Value(2));
        map.insert(Value(2), Value(1));
        map.insert(Value(1), Value(1));
        assert_eq!(resolve(&map, Value(3)), Value(1));
        assert_eq!(resolve(&map, Value(7)), Value(7));
    }
}
