//! Walking a block with its nested regions (a loop's body, an `if`'s two sides): every pass and
//! analysis that visits nested regions goes through here, and says what it does per instruction,
//! not how to descend. An instruction is visited before its regions, in program order (or last
//! first, [`walk_insts_rev`]); a pass that acts around a region (a phi's merge after the loop's
//! body, the scope of an `if`'s side) takes the [`Step`]s of [`walk_steps`].
//!
//! What an instruction reads and defines itself, its regions aside, is [`Inst::reads`],
//! [`Inst::map_reads`] and [`Inst::defines`].

use super::{Block, Inst, Operands, Value};

/// Where a walk by [`walk_steps`] stands at an instruction.
#[derive(Debug, Clone, Copy)]
pub enum Step<I> {
    /// Before the instruction's regions: every instruction has this step, a `Let` only this one.
    Enter(I),
    /// Between an `if`'s `then` and `other` sides.
    Between(I),
    /// After the regions of a loop or an `if`.
    Leave(I),
}

/// Calls `f` on every instruction, depth first, in program order.
pub fn walk_insts<'a>(block: &'a Block, f: &mut impl FnMut(&'a Inst)) {
    for inst in &block.insts {
        f(inst);
        for region in regions(inst) {
            walk_insts(region, f);
        }
    }
}

/// [`walk_insts`], last instruction first: each instruction before its regions, which are
/// walked last first too (for what flows backwards, as liveness).
pub fn walk_insts_rev<'a>(block: &'a Block, f: &mut impl FnMut(&'a Inst)) {
    for inst in block.insts.iter().rev() {
        f(inst);
        for region in regions(inst) {
            walk_insts_rev(region, f);
        }
    }
}

/// [`walk_insts`] with each instruction given to change (its regions are walked after `f`
/// returns, as `f` left them).
pub fn walk_insts_mut(block: &mut Block, f: &mut impl FnMut(&mut Inst)) {
    for inst in &mut block.insts {
        f(inst);
        for region in regions_mut(inst) {
            walk_insts_mut(region, f);
        }
    }
}

/// Calls `f` on every [`Step`] of every instruction, depth first, in program order.
pub fn walk_steps<'a>(block: &'a Block, f: &mut impl FnMut(Step<&'a Inst>)) {
    let walked = try_walk_steps(block, &mut |step| {
        f(step);
        Ok::<(), std::convert::Infallible>(())
    });
    match walked {
        Ok(()) => {}
        Err(never) => match never {},
    }
}

/// [`walk_steps`] with `f` able to fail: the first error stops the walk.
pub fn try_walk_steps<'a, E>(
    block: &'a Block,
    f: &mut impl FnMut(Step<&'a Inst>) -> Result<(), E>,
) -> Result<(), E> {
    for inst in &block.insts {
        f(Step::Enter(inst))?;
        match inst {
            Inst::Let { .. } => continue,
            Inst::Loop { body, .. } => try_walk_steps(body, f)?,
            Inst::If { then, other, .. } => {
                try_walk_steps(then, f)?;
                f(Step::Between(inst))?;
                try_walk_steps(other, f)?;
            }
        }
        f(Step::Leave(inst))?;
    }
    Ok(())
}

/// [`walk_steps`] with each instruction given to change at each of its steps.
pub fn walk_steps_mut(block: &mut Block, f: &mut impl FnMut(Step<&mut Inst>)) {
    for inst in &mut block.insts {
        f(Step::Enter(inst));
        match inst {
            Inst::Let { .. } => continue,
            Inst::Loop { body, .. } => walk_steps_mut(body, f),
            Inst::If { then, .. } => {
                walk_steps_mut(then, f);
                f(Step::Between(inst));
                if let Inst::If { other, .. } = inst {
                    walk_steps_mut(other, f);
                }
            }
        }
        f(Step::Leave(inst));
    }
}

/// Keeps the instructions for which `f` is true, in every block; an instruction's regions are
/// filtered before `f` decides on it (a loop whose body is left empty may go).
pub fn retain_insts(block: &mut Block, f: &mut impl FnMut(&mut Inst) -> bool) {
    block.insts.retain_mut(|inst| {
        for region in regions_mut(inst) {
            retain_insts(region, f);
        }
        f(inst)
    });
}

/// Rebuilds every block: `f` sees each instruction (before its regions, as [`walk_insts_mut`])
/// and may push instructions to run just before it into `before`.
pub fn insert_before(block: &mut Block, f: &mut impl FnMut(&mut Inst, &mut Vec<Inst>)) {
    let insts = std::mem::take(&mut block.insts);
    for mut inst in insts {
        f(&mut inst, &mut block.insts);
        for region in regions_mut(&mut inst) {
            insert_before(region, f);
        }
        block.insts.push(inst);
    }
}

/// Calls `f` on every block (nested ones first, in program order, then `block` itself).
pub fn walk_blocks_mut(block: &mut Block, f: &mut impl FnMut(&mut Block)) {
    for inst in &mut block.insts {
        for region in regions_mut(inst) {
            walk_blocks_mut(region, f);
        }
    }
    f(block);
}

/// The regions `inst` holds, in program order (no allocation: walks ask every instruction).
fn regions(inst: &Inst) -> impl Iterator<Item = &Block> {
    let (first, second) = match inst {
        Inst::Let { .. } => (None, None),
        Inst::Loop { body, .. } => (Some(body), None),
        Inst::If { then, other, .. } => (Some(then), Some(other)),
    };
    first.into_iter().chain(second)
}

/// [`regions`], to change.
fn regions_mut(inst: &mut Inst) -> impl Iterator<Item = &mut Block> {
    let (first, second) = match inst {
        Inst::Let { .. } => (None, None),
        Inst::Loop { body, .. } => (Some(body), None),
        Inst::If { then, other, .. } => (Some(then), Some(other)),
    };
    first.into_iter().chain(second)
}

impl Inst {
    /// The values the instruction reads itself, its regions aside: an operation's operands; a
    /// loop's activity mask and its phis' initial and next values; a branch's condition and
    /// the two inputs of each merge.
    pub fn reads(&self) -> Operands<'_> {
        match self {
            Inst::Let { op, .. } => op.operands(),
            Inst::Loop { phis, active, .. } => Operands::Owned(
                active
                    .iter()
                    .copied()
                    .chain(phis.iter().flat_map(|p| [p.init, p.next]))
                    .collect(),
            ),
            Inst::If { cond, outs, .. } => Operands::Owned(
                std::iter::once(*cond)
                    .chain(outs.iter().flat_map(|o| [o.then, o.other]))
                    .collect(),
            ),
        }
    }

    /// Replaces every value [`Self::reads`] lists by `f` of it.
    pub fn map_reads(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            Inst::Let { op, .. } => op.rename_operands(f),
            Inst::Loop { phis, active, .. } => {
                if let Some(a) = active {
                    *a = f(*a);
                }
                for p in phis {
                    (p.init, p.next) = (f(p.init), f(p.next));
                }
            }
            Inst::If { cond, outs, .. } => {
                *cond = f(*cond);
                for o in outs {
                    (o.then, o.other) = (f(o.then), f(o.other));
                }
            }
        }
    }

    /// Whether the instruction itself defines `v`: as an operation's result, a loop's index or
    /// phi, or a branch's merged value.
    pub fn defines(&self, v: Value) -> bool {
        match self {
            Inst::Let { dst, .. } => *dst == v,
            Inst::Loop { index, phis, .. } => *index == v || phis.iter().any(|p| p.dst == v),
            Inst::If { outs, .. } => outs.iter().any(|o| o.dst == v),
        }
    }
}
