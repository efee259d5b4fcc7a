//! The IR verifier: the invariants every pass keeps. The pipeline runs it after each pass in
//! tests and debug builds; a violation is an internal error naming the pass.
//!
//! - structure: every value in range and defined once; a loop's step is non-zero and a loop
//!   over a tuple runs over its items; a branch condition and a loop index are scalars;
//! - scoping: every read is of a value defined before it, in its block or an enclosing one
//!   (a loop's phis are defined at its head, its index inside it, merged values after it);
//! - shapes: operations that make arrays give arrays; a scalar is computed from scalars
//!   (constants may be marked arrays until shapes are recomputed) and merges only scalars;
//! - placeholders: defined by `Placeholder` (and flagged so), read only by a merge (a phi's
//!   initial value, a side of a scalar `if`) directly or through `AsArray`;
//! - kinds: a `Let` has the kind the result-kind rules give its operation (a tuple index may be
//!   narrower, a parameter's kind is the caller's), and, where kinds are fresh, a merge is at
//!   least as wide as what it merges (see [`Kinds`]).

use super::constant::const_kind;
use super::op::{result_kind, Op};
use super::types::{Kind, Shape, Value};
use super::{try_walk_steps, Block, Function, Inst, Step, UniformOp};

/// How much of the kind invariants holds after a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinds {
    /// Kinds were just computed (lowering, kind inference, legalize): every rule holds.
    Fresh,
    /// After a rewrite that replaces operands (fold, cse, dce): operations still have the kinds
    /// the rules give, but a phi or scalar-`if` merge may be narrower than its input until
    /// kinds are recomputed. Folding a mixed-kind select to its int side can widen what reads
    /// it (`Kind::arith` of float and unknown is float, of int and unknown unknown).
    Operations,
}

/// Checks `f`'s invariants; the first violation, described, as the error.
pub fn verify(f: &Function, kinds: Kinds) -> Result<(), String> {
    let n = f.values.len();
    let mut v = Verifier {
        f,
        kinds,
        defined: vec![false; n],
        ever: vec![false; n],
        placeholder_like: vec![false; n],
        consts: vec![false; n],
        scope: vec![],
    };
    v.block(&f.body)?;
    if f.ret.is_empty() || (!f.tuple && f.ret.len() != 1) {
        return Err(format!(
            "the return has {} values but tuple is {}",
            f.ret.len(),
            f.tuple
        ));
    }
    if let Some(i) = f.result_class {
        if !f.tuple || i < f.declared_params || i >= f.params.len() {
            return Err(format!(
                "the result class {i} is not a hidden parameter of a tuple result"
            ));
        }
    }
    for &r in &f.ret {
        v.read(r, "the return")?;
        if v.placeholder_like[r.index()] {
            return Err(format!("the return {r} is a placeholder"));
        }
    }
    for x in f.exit_values().into_iter().skip(f.ret.len()) {
        v.read(x, "a raise code or raise site argument")?;
    }
    v.placeholder_reads(&f.body)
}

struct Verifier<'f> {
    f: &'f Function,
    kinds: Kinds,
    /// Defined and visible at the current point.
    defined: Vec<bool>,
    /// Defined anywhere so far (a value is defined once).
    ever: Vec<bool>,
    /// A placeholder, or `AsArray` of one.
    placeholder_like: Vec<bool>,
    /// Defined by `Const`.
    consts: Vec<bool>,
    /// Values defined in the open blocks, innermost last.
    scope: Vec<Value>,
}

impl<'f> Verifier<'f> {
    fn in_range(&self, v: Value) -> Result<(), String> {
        if v.index() < self.f.values.len() {
            Ok(())
        } else {
            Err(format!("{v} is not a value of the function"))
        }
    }

    fn define(&mut self, v: Value) -> Result<(), String> {
        self.in_range(v)?;
        if self.ever[v.index()] {
            return Err(format!("{v} is defined twice"));
        }
        self.ever[v.index()] = true;
        self.defined[v.index()] = true;
        self.scope.push(v);
        Ok(())
    }

    fn read(&self, v: Value, by: &str) -> Result<(), String> {
        self.in_range(v)?;
        if self.defined[v.index()] {
            Ok(())
        } else {
            Err(format!(
                "{by} reads {v}, which is not defined before it in scope"
            ))
        }
    }

    /// Lowers the scope to `mark`: the values defined since are no longer visible.
    fn close(&mut self, mark: usize) {
        for v in self.scope.drain(mark..) {
            self.defined[v.index()] = false;
        }
    }

    fn kind(&self, v: Value) -> Kind {
        self.f.info(v).kind
    }

    fn shape(&self, v: Value) -> Shape {
        self.f.info(v).shape
    }

    /// Checks every instruction of `b` in program order, keeping the scope: what a loop's body
    /// or an `if`'s side defines is visible in it only (`marks`: the scope's length where each
    /// open region began, innermost last).
    fn block(&mut self, b: &'f Block) -> Result<(), String> {
        let mut marks = vec![];
        try_walk_steps(b, &mut |at| match at {
            Step::Enter(Inst::Let { dst, op }) => self.let_(*dst, op),
            Step::Enter(inst @ Inst::Loop { index, .. }) => {
                self.loop_head(inst)?;
                // The index is defined inside the body only.
                marks.push(self.scope.len());
                self.define(*index)?;
                if self.shape(*index) != Shape::Scalar {
                    return Err(format!("the loop index {index} is not a scalar"));
                }
                Ok(())
            }
            Step::Leave(Inst::Loop { phis, .. }) => {
                for p in phis {
                    self.read(p.next, &format!("the next value of phi {}", p.dst))?;
                    self.merge(p.dst, &[p.init, p.next])?;
                }
                self.close(marks.pop().unwrap_or_default());
                Ok(())
            }
            Step::Enter(Inst::If { cond, .. }) => {
                self.read(*cond, "a branch")?;
                if self.shape(*cond) != Shape::Scalar {
                    return Err(format!("the branch on {cond} is not on a scalar"));
                }
                marks.push(self.scope.len());
                Ok(())
            }
            Step::Between(Inst::If { outs, .. }) => {
                for o in outs {
                    self.read(o.then, &format!("the merge {}", o.dst))?;
                }
                self.close(marks.last().copied().unwrap_or_default());
                Ok(())
            }
            Step::Leave(Inst::If { outs, .. }) => {
                for o in outs {
                    self.read(o.other, &format!("the merge {}", o.dst))?;
                }
                self.close(marks.pop().unwrap_or_default());
                for o in outs {
                    self.define(o.dst)?;
                    self.merge(o.dst, &[o.then, o.other])?;
                }
                Ok(())
            }
            Step::Between(_) | Step::Leave(_) => Ok(()),
        })
    }

    /// A loop's head, before its body: its step, activity mask and items, then its phis, whose
    /// initial values are read and which are defined from here on (after the loop too).
    fn loop_head(&mut self, inst: &Inst) -> Result<(), String> {
        let Inst::Loop {
            index,
            start,
            stop,
            step,
            items,
            phis,
            active,
            ..
        } = inst
        else {
            return Ok(()); // `block` calls it on loops only
        };
        if *step == 0 {
            return Err(format!("the loop over {index} has step 0"));
        }
        if let Some(a) = active {
            if !phis.iter().any(|p| p.dst == *a) {
                return Err(format!("the activity mask {a} is not a phi of its loop"));
            }
            if (self.kind(*a), self.shape(*a)) != (Kind::Bool, Shape::Array) {
                return Err(format!("the activity mask {a} is not a bool array"));
            }
        }
        if let Some(items) = items {
            let super::Const::Tuple(t) = items else {
                return Err(format!("the loop over {index} runs over a non-tuple"));
            };
            if (*start, *stop, *step) != (0, t.len() as i128, 1) {
                return Err(format!("the loop over {index} does not cover its items"));
            }
        }
        for p in phis {
            self.read(p.init, &format!("the initial value of phi {}", p.dst))?;
        }
        for p in phis {
            self.define(p.dst)?;
        }
        Ok(())
    }

    fn let_(&mut self, dst: Value, op: &Op) -> Result<(), String> {
        for a in op.operands() {
            self.read(a, &format!("{dst}"))?;
        }
        self.define(dst)?;
        let info = self.f.info(dst);
        let is_placeholder = matches!(op, Op::Placeholder(_));
        if info.placeholder != is_placeholder {
            return Err(format!(
                "{dst}'s placeholder flag does not match its operation"
            ));
        }
        self.consts[dst.index()] = matches!(op, Op::Const(_));
        self.placeholder_like[dst.index()] =
            is_placeholder || matches!(op, Op::AsArray(a) if self.placeholder_like[a.index()]);
        if let Op::Param(i) = op {
            if *i >= self.f.params.len() {
                return Err(format!(
                    "{dst} reads parameter {i} of {}",
                    self.f.params.len()
                ));
            }
        }
        // Shapes.
        let array_op = matches!(
            op,
            Op::Param(_)
                | Op::Math(..)
                | Op::ScalarCall { .. }
                | Op::ScalarRaised(_)
                | Op::Call { .. }
                | Op::Broadcast(_)
                | Op::AsArray(_)
        );
        if array_op && info.shape != Shape::Array {
            return Err(format!(
                "{dst} is marked scalar but its operation makes an array"
            ));
        }
        // D22: the element type of a parameter is read from its dtype, once per call.
        let reads_dtype = matches!(op, Op::Uniform(UniformOp::ElementIs(_), _));
        if info.shape == Shape::Scalar && !is_placeholder && !reads_dtype {
            for a in op.operands() {
                if self.shape(a) == Shape::Array && !self.is_const(a) {
                    return Err(format!("the scalar {dst} reads the array {a}"));
                }
            }
        }
        // Kinds.
        let rule = match op {
            // A call's kind is its callee instance's result kind (kinds::infer_kinds_with).
            Op::Param(_) | Op::Placeholder(_) | Op::Call { .. } => return Ok(()),
            Op::Const(c) => const_kind(c),
            _ => result_kind(op, &|v| self.kind(v), &[]),
        };
        let ok = match op {
            Op::Index(..) => info.kind.within(rule),
            _ => info.kind == rule,
        };
        if !ok {
            return Err(format!(
                "{dst} is marked {} but its operation gives {}",
                info.kind.name(),
                rule.name()
            ));
        }
        Ok(())
    }

    /// Constants are the only values a pass may leave marked as arrays while they are scalars
    /// (a folded array operation; shapes are recomputed after the rewrites).
    fn is_const(&self, v: Value) -> bool {
        self.consts[v.index()]
    }

    /// A merge (phi or scalar-`if` output) of `inputs`: as wide as each input that is not a
    /// placeholder, and a scalar only if they all are.
    fn merge(&self, dst: Value, inputs: &[Value]) -> Result<(), String> {
        for &i in inputs {
            if self.f.info(i).placeholder || self.placeholder_like[i.index()] {
                continue;
            }
            if self.kinds == Kinds::Fresh && !self.kind(i).within(self.kind(dst)) {
                return Err(format!(
                    "the merge {dst} ({}) is narrower than its input {i} ({})",
                    self.kind(dst).name(),
                    self.kind(i).name()
                ));
            }
            if self.shape(dst) == Shape::Scalar
                && self.shape(i) == Shape::Array
                && !self.is_const(i)
            {
                return Err(format!("the scalar merge {dst} merges the array {i}"));
            }
        }
        Ok(())
    }

    /// Placeholders are read only by merges (directly or through `AsArray`).
    fn placeholder_reads(&self, b: &Block) -> Result<(), String> {
        try_walk_steps(b, &mut |at| match at {
            Step::Enter(Inst::Let { dst, op }) => {
                let through = matches!(op, Op::AsArray(_));
                for a in op.operands() {
                    if self.placeholder_like[a.index()] && !through {
                        return Err(format!("{dst} reads the placeholder {a}"));
                    }
                }
                Ok(())
            }
            Step::Enter(Inst::Loop { phis, .. }) => {
                for p in phis {
                    if self.placeholder_like[p.next.index()] {
                        return Err(format!("phi {} iterates a placeholder", p.dst));
                    }
                }
                Ok(())
            }
            Step::Enter(Inst::If { cond, .. }) if self.placeholder_like[cond.index()] => {
                Err(format!("a branch is on the placeholder {cond}"))
            }
            _ => Ok(()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, Const, IfOut, Phi, ValueInfo};

    fn info(kind: Kind, shape: Shape) -> ValueInfo {
        ValueInfo {
            kind,
            shape,
            hint: None,
            placeholder: false,
        }
    }

    /// `fn f(x) { %0 = param 0; %1 = const 2.0; %2 = mul %0, %1; return %2 }`.
    fn valid() -> Function {
        Function {
            name: "f".into(),
            params: vec!["x".into()],
            declared_params: 1,
            modes: vec![],
            values: vec![
                info(Kind::Unknown, Shape::Array),
                info(Kind::Float, Shape::Scalar),
                info(Kind::Float, Shape::Array),
            ],
            body: Block {
                insts: vec![
                    Inst::Let {
                        dst: Value(0),
                        op: Op::Param(0),
                    },
                    Inst::Let {
                        dst: Value(1),
                        op: Op::Const(Const::Float(2.0)),
                    },
                    Inst::Let {
                        dst: Value(2),
                        op: Op::Binary(BinOp::Mul, Value(0), Value(1)),
                    },
                ],
            },
            ret: vec![Value(2)],
            tuple: false,
            result_class: None,
            raises: None,
        }
    }

    fn verify_fresh(f: &Function) -> Result<(), String> {
        verify(f, Kinds::Fresh)
    }

    fn let_(dst: u32, op: Op) -> Inst {
        Inst::Let {
            dst: Value(dst),
            op,
        }
    }

    fn fails(f: &Function, what: &str) {
        let err = verify(f, Kinds::Fresh).expect_err("a broken invariant is caught");
        assert!(err.contains(what), "{err:?} should mention {what:?}");
    }

    #[test]
    fn accepts_a_valid_function() {
        assert_eq!(verify_fresh(&valid()), Ok(()));
    }

    #[test]
    fn catches_a_use_before_its_definition() {
        let mut f = valid();
        f.body.insts.swap(1, 2);
        fails(&f, "not defined before it");
    }

    #[test]
    fn catches_a_value_defined_twice() {
        let mut f = valid();
        f.body.insts.push(let_(1, Op::Const(Const::Float(2.0))));
        fails(&f, "defined twice");
    }

    #[test]
    fn catches_a_read_of_a_value_defined_inside_a_branch() {
        let mut f = valid();
        f.values.push(info(Kind::Bool, Shape::Scalar));
        f.values.push(info(Kind::Float, Shape::Scalar));
        f.body.insts.push(let_(3, Op::Const(Const::Bool(true))));
        f.body.insts.push(Inst::If {
            cond: Value(3),
            then: Block {
                insts: vec![let_(4, Op::Const(Const::Float(1.0)))],
            },
            other: Block::default(),
            outs: vec![],
        });
        f.ret = vec![Value(4)];
        fails(&f, "not defined before it");
    }

    #[test]
    fn catches_an_array_operation_marked_scalar() {
        let mut f = valid();
        f.values[0].shape = Shape::Scalar;
        fails(&f, "makes an array");
    }

    #[test]
    fn catches_a_scalar_computed_from_an_array() {
        let mut f = valid();
        f.values[2].shape = Shape::Scalar;
        fails(&f, "reads the array");
    }

    #[test]
    fn catches_a_kind_the_rules_do_not_give() {
        let mut f = valid();
        f.values[2].kind = Kind::Int;
        fails(&f, "marked int but its operation gives float");
        let mut f = valid();
        f.values[1].kind = Kind::Int;
        fails(&f, "marked int but its operation gives float");
        let mut f = valid();
        f.values[0].kind = Kind::Float;
        f.values[2].kind = Kind::Unknown;
        fails(&f, "marked num but its operation gives float");
    }

    #[test]
    fn catches_a_placeholder_read_by_an_operation() {
        let mut f = valid();
        f.values.push(ValueInfo {
            placeholder: true,
            ..info(Kind::Float, Shape::Array)
        });
        f.values.push(info(Kind::Float, Shape::Array));
        f.body
            .insts
            .push(let_(3, Op::Placeholder(Const::Float(0.0))));
        f.body
            .insts
            .push(let_(4, Op::Binary(BinOp::Mul, Value(3), Value(0))));
        f.ret = vec![Value(4)];
        fails(&f, "reads the placeholder");
        let mut g = valid();
        g.values.push(info(Kind::Float, Shape::Array));
        g.body
            .insts
            .push(let_(3, Op::Placeholder(Const::Float(0.0))));
        fails(&g, "placeholder flag");
    }

    /// A loop `for %4 in range(0, 3, 1)` carrying `%3 = phi(%1, %5)`, `%5 = %3 * %0`.
    fn with_loop(step: i128, next: u32, phi_shape: Shape) -> Function {
        let mut f = valid();
        f.values.push(info(Kind::Unknown, phi_shape)); // %3
        f.values.push(info(Kind::Int, Shape::Scalar)); // %4
        f.values.push(info(Kind::Unknown, Shape::Array)); // %5
        f.body.insts.push(Inst::Loop {
            index: Value(4),
            start: 0,
            stop: 3,
            step,
            items: None,
            phis: vec![Phi {
                dst: Value(3),
                init: Value(1),
                next: Value(next),
            }],
            body: Block {
                insts: vec![let_(5, Op::Binary(BinOp::Mul, Value(3), Value(0)))],
            },
            active: None,
        });
        f.ret = vec![Value(3)];
        f
    }

    #[test]
    fn checks_loops() {
        assert_eq!(verify_fresh(&with_loop(1, 5, Shape::Array)), Ok(()));
        fails(&with_loop(0, 5, Shape::Array), "step 0");
        fails(&with_loop(1, 5, Shape::Scalar), "merges the array");
        // The next value must be defined in the loop or before it.
        let mut f = with_loop(1, 5, Shape::Array);
        f.values.push(info(Kind::Unknown, Shape::Array));
        if let Some(Inst::Loop { phis, .. }) = f.body.insts.last_mut() {
            phis[0].next = Value(6);
        }
        fails(&f, "not defined before it");
        // The index is not visible after the loop.
        let mut f = with_loop(1, 5, Shape::Array);
        f.ret = vec![Value(4)];
        fails(&f, "not defined before it");
    }

    #[test]
    fn checks_scalar_if_merges() {
        let mut f = valid();
        f.values.push(info(Kind::Bool, Shape::Scalar)); // %3
        f.values.push(info(Kind::Int, Shape::Scalar)); // %4
        f.values.push(info(Kind::Int, Shape::Scalar)); // %5
        f.values.push(info(Kind::Float, Shape::Scalar)); // %6
        f.body.insts.push(let_(3, Op::Const(Const::Bool(true))));
        f.body.insts.push(Inst::If {
            cond: Value(3),
            then: Block {
                insts: vec![let_(4, Op::Const(Const::Int(1)))],
            },
            other: Block {
                insts: vec![let_(5, Op::Const(Const::Int(2)))],
            },
            outs: vec![IfOut {
                dst: Value(6),
                then: Value(4),
                other: Value(5),
            }],
        });
        f.ret = vec![Value(6)];
        assert_eq!(verify_fresh(&f), Ok(()));
        let mut narrow = f.clone();
        narrow.values[6].kind = Kind::Bool;
        fails(&narrow, "narrower than its input");
        assert_eq!(verify(&narrow, Kinds::Operations), Ok(()));
        let mut array_cond = f.clone();
        array_cond.values[3].shape = Shape::Array;
        fails(&array_cond, "not on a scalar");
        let mut crossed = f;
        if let Some(Inst::If { outs, .. }) = crossed.body.insts.last_mut() {
            outs[0].other = Value(4);
        }
        fails(&crossed, "not defined before it");
    }
}
