//! The naming plan: which values are printed inline at their single use, and the variable name
//! of every other one. Values used once, in the block that defines them, are inlined; every
//! other value gets a variable named after the source variable it was assigned to (`cond`,
//! `merged` or `tmp` when it has none), made unique against the parameters, the reserved names
//! and every name taken before.

use std::collections::BTreeSet;

use super::{Gen, MAX_INLINE_DEPTH};
use crate::ir::{use_counts, walk_steps, Block, Inst, Op, Step, UnOp, Value};

/// Where a value is read: never, once in the block with this id, or more than that.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Uses {
    None,
    Once(usize),
    Many,
}

/// Which block (by id, in program order) defines each value and where each value is read.
struct Reads {
    def_block: Vec<usize>,
    uses: Vec<Uses>,
    next_block: usize,
}

impl Reads {
    fn read(&mut self, v: Value, block: usize) {
        let u = &mut self.uses[v.index()];
        *u = if *u == Uses::None {
            Uses::Once(block)
        } else {
            Uses::Many
        };
    }

    fn new_block(&mut self) -> usize {
        self.next_block += 1;
        self.next_block
    }

    /// Records the definitions of `b` (block 0) in `defs` and the reads of its values, each
    /// in the block it stands in: a phi's initial value in the loop's block, its next value in
    /// the body; a merge's inputs in their sides.
    fn scan<'a>(&mut self, b: &'a Block, defs: &mut [Option<&'a Op>]) {
        // The open blocks, innermost last; and the `then` side of each open `if` whose `other`
        // side is being walked.
        let mut open = vec![0];
        let mut thens = vec![];
        walk_steps(b, &mut |at| {
            let id = open.last().copied().unwrap_or_default();
            match at {
                Step::Enter(Inst::Let { dst, op }) => {
                    defs[dst.index()] = Some(op);
                    self.def_block[dst.index()] = id;
                    for v in op.operands() {
                        self.read(v, id);
                    }
                }
                Step::Enter(Inst::Loop { phis, .. }) => {
                    let inner = self.new_block();
                    for p in phis {
                        self.read(p.init, id);
                        self.read(p.next, inner);
                    }
                    open.push(inner);
                }
                Step::Enter(Inst::If { cond, .. }) => {
                    self.read(*cond, id);
                    open.push(self.new_block());
                }
                Step::Between(_) => {
                    thens.push(open.pop().unwrap_or_default());
                    open.push(self.new_block());
                }
                Step::Leave(Inst::If { outs, .. }) => {
                    let (t, o) = (thens.pop().unwrap_or_default(), id);
                    for out in outs {
                        self.read(out.then, t);
                        self.read(out.other, o);
                    }
                    open.pop();
                }
                Step::Leave(_) => {
                    open.pop();
                }
            }
        });
    }
}

impl Gen<'_> {
    /// Decides which values are inlined and names the parameters; other names are given as the
    /// body is printed (`name_of`), so they are numbered in the order they appear.
    pub(super) fn plan(&mut self) {
        let n = self.f.values.len();
        let mut reads = Reads {
            def_block: vec![usize::MAX; n],
            uses: vec![Uses::None; n],
            next_block: 0,
        };
        let f = self.f;
        reads.scan(&f.body, &mut self.defs);
        for v in f.exit_values() {
            reads.read(v, 0);
        }
        // In program order (values are numbered as they are created), so an operand's nesting
        // depth is known before its user's.
        let mut depth = vec![0usize; n];
        for i in 0..n {
            let Some(op) = self.defs[i] else { continue };
            let nested = self.nesting(op, &depth);
            let inline = match op {
                Op::Const(_) => true,
                Op::Param(p) => {
                    self.names[i] = Some(self.locals[*p].clone());
                    false
                }
                Op::ScalarCall { .. } | Op::ScalarRaised(_) => false,
                // CPython refuses expressions nested 200 deep: long chains get names.
                _ if nested > MAX_INLINE_DEPTH => false,
                _ => reads.uses[i] == Uses::Once(reads.def_block[i]),
            };
            if inline {
                self.inline[i] = true;
                depth[i] = nested;
            }
        }
        let counts = use_counts(f);
        self.inline_clip_inners(&counts, &reads.def_block);
        self.inline_array_clip_inners(&counts, &reads.def_block);
        self.inline_min_max_operands(&counts, &reads.def_block, &mut depth);
    }

    /// How deep `op`'s expression nests when printed: one more than its deepest inlined operand.
    pub(super) fn nesting(&self, op: &Op, depth: &[usize]) -> usize {
        1 + op
            .operands()
            .iter()
            .filter(|o| self.inline[o.index()])
            .map(|o| depth[o.index()])
            .max()
            .unwrap_or(0)
    }

    /// The variable of `v`, named on first use.
    pub(super) fn name_of(&mut self, v: Value) -> String {
        if let Some(n) = &self.names[v.index()] {
            return n.clone();
        }
        let info = self.f.info(v);
        let base = match &info.hint {
            Some(h) => h.clone(),
            None => match self.def(v) {
                Some(Op::Compare(..) | Op::Logic(..) | Op::Unary(UnOp::Not, _)) => "cond".into(),
                Some(Op::Select(..)) => "merged".into(),
                _ => "tmp".into(),
            },
        };
        let n = self.taken.fresh(&base);
        self.names[v.index()] = Some(n.clone());
        n
    }
}

/// `base`, or `base_1`, `base_2`, ... : the first not in `taken`.
pub(crate) fn unique(base: &str, taken: &BTreeSet<String>) -> String {
    if !taken.contains(base) {
        return base.to_string();
    }
    (1..)
        .map(|i| format!("{base}_{i}"))
        .find(|c| !taken.contains(c))
        .unwrap_or_else(|| base.to_string())
}

/// Names made unique with a numeric suffix, as [`unique`] makes them, in amortized constant
/// time: the next suffix to try is remembered per base (searching from 1 each time made the
/// thousands of `merged`/`cond` temporaries of a long `elif` chain quadratic). The reserved names
/// are borrowed, not copied: every body of a compile starts from the same ones.
#[derive(Debug, Clone)]
pub(crate) struct FreshNames<'r> {
    reserved: &'r BTreeSet<String>,
    /// Names taken beyond `reserved`.
    taken: BTreeSet<String>,
    next: crate::Map<String, usize>,
}

impl<'r> FreshNames<'r> {
    /// Fresh names that avoid every name of `reserved` and of `taken`.
    pub(crate) fn new(reserved: &'r BTreeSet<String>, taken: BTreeSet<String>) -> Self {
        FreshNames {
            reserved,
            taken,
            next: crate::Map::default(),
        }
    }

    /// Takes `name` if it is free; whether it was.
    fn take(&mut self, name: &str) -> bool {
        !self.reserved.contains(name) && self.taken.insert(name.to_string())
    }

    /// `base` itself when free, else `base_i` with the smallest free `i >= 1`; taken from now on.
    pub(crate) fn fresh(&mut self, base: &str) -> String {
        if self.take(base) {
            return base.to_string();
        }
        // Names are only ever added, so no suffix below the remembered one is free again.
        let mut next = self.next.get(base).copied().unwrap_or(1);
        loop {
            let candidate = format!("{base}_{next}");
            next += 1;
            if self.take(&candidate) {
                self.next.insert(base.to_string(), next);
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::compiled;

    #[test]
    fn fresh_names_take_the_smallest_free_suffix() {
        let taken: BTreeSet<String> = ["merged", "merged_2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut names = FreshNames::new(&taken, BTreeSet::new());
        assert_eq!(names.fresh("merged"), "merged_1");
        assert_eq!(names.fresh("merged"), "merged_3");
        assert_eq!(names.fresh("cond"), "cond");
        assert_eq!(names.fresh("cond"), "cond_1");
    }

    #[test]
    fn unique_numbers_taken_names() {
        let taken: BTreeSet<String> = ["x", "x_1"].iter().map(|s| s.to_string()).collect();
        assert_eq!(unique("y", &taken), "y");
        assert_eq!(unique("x", &taken), "x_2");
    }

    #[test]
    fn a_value_read_once_is_inlined_and_one_read_twice_is_named_after_its_variable() {
        let c = compiled("def f(x):\n    y = x * 2.0\n    return y + 1.0\n");
        assert!(
            c.generated.fast_source.contains("return x * 2.0 + 1.0"),
            "{}",
            c.source
        );
        let c = compiled("def f(x):\n    y = x * 2.0\n    return y * y\n");
        assert!(
            c.generated.fast_source.contains("y = x * 2.0\n"),
            "{}",
            c.source
        );
    }

    #[test]
    fn unnamed_values_are_cond_merged_or_tmp_and_never_shadow_a_parameter() {
        let c = compiled(
            "def f(x, cond):\n    return cond + (1.0 if x > 0.0 else 2.0) + (3.0 if x > 0.0 else 4.0)\n",
        );
        assert!(c.source.contains("cond_1 = "), "{}", c.source);
        assert!(!c.source.contains("\n    cond = "), "{}", c.source);
    }

    #[test]
    fn long_chains_get_names_before_python_refuses_their_nesting() {
        let sum = (0..60)
            .map(|i| format!("x * {i}.5"))
            .collect::<Vec<_>>()
            .join(" + ");
        let c = compiled(&format!("def f(x):\n    return {sum}\n"));
        assert!(c.generated.fast_source.contains("tmp = "), "{}", c.source);
    }
}
