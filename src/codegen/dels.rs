//! The `del` pass: each named array of a body freed after the last top-level statement that
//! reads it, as a hand-written helper frees its locals when it returns. The inlined helpers of a
//! function would otherwise keep every temporary alive until the end, and NumPy could not reuse
//! their memory for the next ones (bs_call: two normal-CDF helpers, four arrays).

use std::collections::BTreeSet;

use crate::codegen::pyast::{reads, Stmt};

/// `body` with `del` statements after the last top-level read of each name of `arrays` bound at
/// the top level (a name bound in a loop or a branch is read across iterations and merges). No
/// `del` after the last statement: returning frees everything.
pub(super) fn free_dead_arrays(body: Vec<Stmt>, arrays: &BTreeSet<String>) -> Vec<Stmt> {
    let top: BTreeSet<&str> = body
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign(targets, _) => Some(targets.iter().map(String::as_str)),
            _ => None,
        })
        .flatten()
        .filter(|n| arrays.contains(*n))
        .collect();
    let mut last: crate::Map<&str, usize> = crate::Map::default();
    for (i, s) in body.iter().enumerate() {
        let mut r = BTreeSet::new();
        reads(s, &mut r);
        for n in r.into_iter().filter(|n| top.contains(n)) {
            last.insert(n, i);
        }
    }
    let mut dead_after: Vec<Vec<String>> = vec![vec![]; body.len()];
    for (n, i) in last {
        if i + 1 < body.len() {
            dead_after[i].push(n.to_string());
        }
    }
    let mut out = Vec::with_capacity(body.len());
    for (s, mut dead) in body.into_iter().zip(dead_after) {
        out.push(s);
        if !dead.is_empty() {
            dead.sort();
            out.push(Stmt::Del(dead));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::pyast::{bin, module, name, Expr};

    fn assign(target: &str, e: Expr) -> Stmt {
        Stmt::Assign(vec![target.into()], vec![e])
    }

    fn names(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arrays_are_freed_after_their_last_read_and_scalars_never() {
        let body = vec![
            assign("a", bin("*", name("x"), name("x"))),
            assign("b", bin("+", name("a"), name("a"))),
            assign("n", Expr::Int(2)),
            assign("c", bin("*", name("b"), name("n"))),
            Stmt::Return(bin("+", name("c"), name("n"))),
        ];
        let text = module(&[Stmt::Def {
            name: "f".into(),
            params: vec!["x".into()],
            posonly: 0,
            kwonly: vec![],
            body: free_dead_arrays(body, &names(&["a", "b", "c"])),
        }]);
        assert_eq!(
            text,
            "def f(x):\n    a = x * x\n    b = a + a\n    del a\n    n = 2\n    c = b * n\n    \
             del b\n    return c + n\n"
        );
    }

    #[test]
    fn names_bound_inside_a_loop_are_left_alone() {
        let body = vec![
            Stmt::For(
                "i".into(),
                name("r"),
                vec![assign("a", bin("+", name("a"), name("x")))],
            ),
            assign("b", bin("*", name("a"), name("a"))),
            Stmt::Return(name("b")),
        ];
        let out = free_dead_arrays(body, &names(&["a", "b"]));
        assert!(!out.iter().any(|s| matches!(s, Stmt::Del(_))), "{out:?}");
    }
}
