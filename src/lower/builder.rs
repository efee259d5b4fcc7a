//! The IR builder: emitting instructions into the innermost open block (folding constants on
//! the fly), constants, placeholders, diagnostics, and the block stack with its guard.

use rustpython_parser::ast::Ranged;

use crate::diagnostics::{Diagnostic, DiagnosticKind, SourceId};
use crate::frontend::extract::span;
use crate::ir::eval::fold_op;
use crate::ir::{const_kind, result_kind, result_shape};
use crate::ir::{Block, Const, IfOut, Inst, Kind, LogicOp, Op, Shape, Value};
use crate::lower::{Frame, Lowerer};

/// A block opened on the lowerer's stack: [`Lowerer::close_block`] takes it back, and checks
/// (panicking in debug builds) that it is the innermost one, so a push without its pop is
/// caught instead of silently merging two blocks.
#[must_use = "an open block must be closed"]
pub(in crate::lower) struct OpenBlock {
    depth: usize,
}

impl Lowerer<'_> {
    /// Makes `block` the innermost open block: instructions emitted go to its end.
    pub(in crate::lower) fn open_block(&mut self, block: Block) -> OpenBlock {
        self.blocks.push(block);
        OpenBlock {
            depth: self.blocks.len(),
        }
    }

    /// Closes the innermost open block and returns it.
    pub(in crate::lower) fn close_block(&mut self, open: OpenBlock) -> Block {
        debug_assert_eq!(
            self.blocks.len(),
            open.depth,
            "lowering closed a block that is not the innermost open one"
        );
        let block = self.blocks.pop();
        debug_assert!(block.is_some(), "lowering closed a block it never opened");
        block.unwrap_or_default()
    }

    /// Runs `f` with `block` as the innermost open block (emitting at its end).
    pub(in crate::lower) fn in_block<T>(
        &mut self,
        block: &mut Block,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let open = self.open_block(std::mem::take(block));
        let out = f(self);
        *block = self.close_block(open);
        out
    }

    /// Appends `inst` to the innermost open block.
    pub(in crate::lower) fn push_inst(&mut self, inst: Inst) {
        debug_assert!(
            !self.blocks.is_empty(),
            "lowering emitted with no open block"
        );
        if let Some(b) = self.blocks.last_mut() {
            b.insts.push(inst);
        }
    }

    /// Emits `op` (folded to a constant when its operands are known), named after `hint`.
    pub(in crate::lower) fn emit_hint(&mut self, op: Op, hint: Option<String>) -> Value {
        let op = self.objects_as_numbers(op);
        let values = &self.f.values;
        let kind = result_kind(&op, &|v: Value| values[v.index()].kind, &[]);
        let shape = result_shape(&op, &|v: Value| values[v.index()].shape);
        let op = if let Some(c) = fold_op(&op, &|v| self.const_of(v)) {
            Op::Const(c)
        } else {
            op
        };
        let kind = if let Op::Const(c) = &op {
            const_kind(c)
        } else {
            kind
        };
        let shape = if matches!(op, Op::Const(_)) {
            Shape::Scalar
        } else {
            shape
        };
        let dst = self.f.new_value(kind, shape, hint);
        if let Op::Const(c) = &op {
            self.consts.insert(dst, c.clone());
        }
        let uniform =
            |v: &Value| self.values.is_uniform_derived(*v) || self.kind(*v) == Kind::Object;
        if matches!(op, Op::Uniform(..)) || op.operands().iter().any(uniform) {
            self.values.add_uniform_derived(dst);
        }
        if matches!(
            op,
            Op::Compare(..) | Op::Logic(..) | Op::Unary(crate::ir::UnOp::Not, _)
        ) {
            self.conditions.insert(dst, op.clone());
        }
        self.push_inst(Inst::Let { dst, op });
        dst
    }

    /// Emits `op`.
    pub(in crate::lower) fn emit(&mut self, op: Op) -> Value {
        self.emit_hint(op, None)
    }

    /// Emits a constant.
    pub(in crate::lower) fn konst(&mut self, c: Const) -> Value {
        self.emit(Op::Const(c))
    }

    /// The constant `v` is, if known.
    pub(in crate::lower) fn const_of(&self, v: Value) -> Option<Const> {
        self.consts.get(&v).cloned()
    }

    /// The kind of `v`.
    pub(in crate::lower) fn kind(&self, v: Value) -> Kind {
        self.f.info(v).kind
    }

    /// The shape of `v`.
    pub(in crate::lower) fn shape(&self, v: Value) -> Shape {
        self.f.info(v).shape
    }

    /// A stand-in for a value whose lowering failed (an error is reported); reading it reports nothing more.
    pub(in crate::lower) fn poison(&mut self) -> Value {
        let v = self.f.new_value(Kind::Unknown, Shape::Array, None);
        self.push_inst(Inst::Let {
            dst: v,
            op: Op::Const(Const::Float(0.0)),
        });
        self.poisoned.insert(v);
        v
    }

    /// Reports a diagnostic at a byte range of `source`.
    pub(in crate::lower) fn error(
        &mut self,
        kind: DiagnosticKind,
        message: String,
        source: SourceId,
        start: usize,
        end: usize,
    ) {
        self.diags.push(Diagnostic {
            kind,
            message,
            source,
            start,
            end,
        });
    }

    /// Reports a diagnostic at `node`.
    pub(in crate::lower) fn error_at<T: Ranged>(
        &mut self,
        frame: &Frame,
        kind: DiagnosticKind,
        message: String,
        node: &T,
    ) {
        let (start, end) = span(node);
        self.error(kind, message, frame.source, start, end);
    }

    /// The source text `start..end` of the frame's function (empty where there is none).
    pub(in crate::lower) fn source_text(&self, frame: &Frame, start: usize, end: usize) -> String {
        self.sources
            .get(frame.source)
            .and_then(|s| s.text.get(start..end))
            .unwrap_or_default()
            .to_string()
    }

    /// `where(c, a, b)`; between bools, with a constant side, the logic it is (`where(c, True,
    /// b)` is `c | b`): the masks of the lanes that assigned a name merge so (D20).
    pub(in crate::lower) fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        if let Some(t) = self.select_tuples(c, a, b) {
            return t;
        }
        let bools = [c, a, b].iter().all(|&v| self.kind(v) == Kind::Bool);
        match (bools, self.const_of(a), self.const_of(b)) {
            (true, Some(Const::Bool(true)), Some(Const::Bool(false))) => c,
            (true, Some(Const::Bool(true)), None) => self.emit(Op::Logic(LogicOp::Or, c, b)),
            (true, None, Some(Const::Bool(false))) => self.emit(Op::Logic(LogicOp::And, c, a)),
            _ => self.emit(Op::Select(c, a, b)),
        }
    }

    /// The conjunction of two optional masks (None is every lane).
    pub(in crate::lower) fn and_opt(
        &mut self,
        a: Option<Value>,
        b: Option<Value>,
    ) -> Option<Value> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.emit(Op::Logic(LogicOp::And, a, b))),
            (a, b) => a.or(b),
        }
    }

    /// `cond` conjoined with the enclosing path condition.
    pub(in crate::lower) fn and_path(&mut self, path: Option<Value>, cond: Value) -> Value {
        match path {
            None => cond,
            Some(p) => self.emit(Op::Logic(LogicOp::And, p, cond)),
        }
    }

    /// A placeholder of the kind and shape of `like`, for a merge whose other side defines it.
    pub(in crate::lower) fn placeholder(&mut self, like: Value) -> Value {
        let kind = self.kind(like);
        let zero = kind.zero();
        // The shape of what it stands in for: a scalar stays a scalar through the merge (and can
        // still index a tuple or decide a Python `if`); codegen writes it as a Python zero.
        let v = self.f.new_value(kind, self.shape(like), None);
        self.f.values[v.index()].placeholder = true;
        self.push_inst(Inst::Let {
            dst: v,
            op: Op::Placeholder(zero),
        });
        v
    }

    /// [`Self::placeholder`] emitted at the end of `block`.
    pub(in crate::lower) fn placeholder_in(&mut self, block: &mut Block, like: Value) -> Value {
        self.in_block(block, |l| l.placeholder(like))
    }

    /// `v` as an array, emitted at the end of `block` when it is a scalar.
    pub(in crate::lower) fn as_array_in(&mut self, block: &mut Block, v: Value) -> Value {
        if self.shape(v) == Shape::Array {
            return v;
        }
        self.in_block(block, |l| l.emit(Op::AsArray(v)))
    }

    /// The initial value of a phi, made an array when the phi is one.
    pub(in crate::lower) fn fit_init(&mut self, init: Value, phi: Value) -> Value {
        if self.shape(phi) == Shape::Array && self.shape(init) == Shape::Scalar {
            self.emit(Op::AsArray(init))
        } else {
            init
        }
    }

    /// Emits a scalar `if` with its two blocks and merged values.
    pub(in crate::lower) fn push_if(
        &mut self,
        cond: Value,
        then: Block,
        other: Block,
        outs: Vec<IfOut>,
    ) {
        self.push_inst(Inst::If {
            cond,
            then,
            other,
            outs,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::lowered;

    #[test]
    fn constants_fold_as_they_are_emitted() {
        let ir = lowered("def f(x):\n    return x * (2 + 3)\n");
        assert!(ir.contains("const 5"), "{ir}");
        assert!(!ir.contains("add"), "{ir}");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "not the innermost")]
    fn closing_an_outer_block_first_is_caught() {
        let mut sources = vec![];
        let mut l = Lowerer::new(&mut sources, super::super::Options::default());
        let outer = l.open_block(Block::default());
        let _inner = l.open_block(Block::default());
        let _ = l.close_block(outer);
    }
}
