//! The whole compiler, stage by stage: extract -> validate -> lower -> optimize -> codegen.

use crate::codegen::{self, Generated};
use crate::diagnostics::{render, CompileError, Diagnostic, Rendered, SourceText};
use crate::env::{Assumption, Env};
use crate::extract;
use crate::ir::{Function, Inst, Kind, Op, Value};
use crate::kinds::{infer_kinds, legalize};
use crate::lower::{Hidden, LowerOptions, Lowerer};
use crate::optimize;
use crate::validate;

/// Options that shape the generated code (part of every cache key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    pub protect_domains: bool,
    pub fallback: bool,
}

pub struct Request<'a> {
    /// Text whose first line starts the `def` (or holds the `lambda`).
    pub source: &'a str,
    pub path: &'a str,
    /// 1-based line of `source`'s first line in `path`.
    pub first_line: usize,
    pub name: &'a str,
    pub env: &'a Env,
    pub options: Options,
}

#[derive(Debug, Clone)]
pub struct Compiled {
    pub source: String,
    pub entry: String,
    pub hidden: Vec<Hidden>,
    /// Every binding the compile read (the static compiler's assumptions).
    pub assumptions: Vec<Assumption>,
    /// The optimized IR (with unknown parameter kinds); printed only when asked for.
    pub ir: Function,
    /// The scalar function's own text (decorators, header, body), for its docstring.
    pub scalar_source: String,
}

/// `ARRAY_VECTORIZE_DEBUG=ir` prints the IR after every pass to stderr.
fn debug_ir() -> bool {
    std::env::var("ARRAY_VECTORIZE_DEBUG").is_ok_and(|v| v.split(',').any(|p| p.trim() == "ir"))
}

pub fn compile_function(req: &Request) -> Result<Compiled, CompileError> {
    let debug = debug_ir();
    let dump = |pass: &str, f: &Function| {
        if debug {
            eprintln!("--- {} after {pass} ---\n{f}", f.name);
        }
    };
    let mut sources: Vec<SourceText> = vec![];
    let fail = |d: Diagnostic, sources: &[SourceText]| {
        CompileError::Diagnostics(vec![render(&d, sources)])
    };

    // extract: the text may run on past the function (the rest of its file); cut it.
    let text = &req.source[..crate::source::block_len(req.source, req.name == "<lambda>")];
    let (id, body) = match extract::parse_text(&mut sources, req.path, text, req.first_line) {
        Ok(x) => x,
        Err(d) => return Err(fail(d, &sources)),
    };
    let func = match extract::find_function(id, &sources, &body, req.name) {
        Ok(f) => f,
        Err(d) => return Err(fail(d, &sources)),
    };

    // validate
    let mut diags = vec![];
    validate::validate(&func, &mut diags);

    // lower
    let opts = LowerOptions {
        protect_domains: req.options.protect_domains,
        fallback: req.options.fallback,
    };
    let (lowered, lower_diags) = Lowerer::new(&mut sources, opts).lower(&func, req.env);
    diags.extend(lower_diags);
    if let Some(l) = &lowered {
        if !l.deferred.is_empty() {
            return Err(CompileError::Deferred(l.deferred.iter().cloned().collect()));
        }
    }
    if !diags.is_empty() || lowered.is_none() {
        return Err(CompileError::Diagnostics(render_all(diags, &sources)));
    }
    let Some(lowered) = lowered else {
        return Err(CompileError::Internal(
            "lowering produced nothing and no diagnostic".into(),
        ));
    };
    let mut exact = lowered.func;
    dump("lower", &exact);

    // optimize
    let unknown = vec![Kind::Unknown; exact.params.len()];
    infer_kinds(&mut exact, &unknown);
    optimize::run(&mut exact, dump);
    // Simplification changes kinds and shapes (a select of one value is that value): recompute
    // them, so codegen's choices match the optimized IR.
    legalize(&mut exact, &unknown);
    broadcast_result(&mut exact);

    // The float fast path: the same IR with float parameters, simplified again.
    let mut float = exact.clone();
    let float_params = vec![Kind::Float; float.params.len()];
    infer_kinds(&mut float, &float_params);
    optimize::run(&mut float, |_, _| {});
    legalize(&mut float, &float_params);
    // Simplification with float kinds can drop a dependency (`1.0 if x else 1.0`).
    broadcast_result(&mut float);
    dump("float kinds", &float);

    // codegen
    let Generated { source, entry } = codegen::generate(
        &float,
        &exact,
        &lowered.hidden,
        codegen::Signature {
            posonly: func.posonly,
            kwonly: func.kwonly,
        },
    );
    let assumptions = lowered
        .used
        .into_iter()
        .map(|(name, binding)| Assumption { name, binding })
        .collect();
    Ok(Compiled {
        source,
        entry,
        hidden: lowered.hidden,
        assumptions,
        ir: exact,
        scalar_source: text.to_string(),
    })
}

/// Diagnostics in source order, each once.
fn render_all(mut diags: Vec<Diagnostic>, sources: &[SourceText]) -> Vec<Rendered> {
    diags.sort_by_key(|d| (d.source, d.start, d.end));
    diags.dedup_by(|a, b| a.source == b.source && a.start == b.start && a.kind == b.kind);
    diags.iter().map(|d| render(d, sources)).collect()
}

/// A result that does not depend on every array parameter would not have the broadcast shape
/// of the inputs (think `return 1.0`): spread it explicitly.
fn broadcast_result(f: &mut Function) {
    let ret = f.ret;
    let already = f
        .body
        .insts
        .iter()
        .any(|inst| matches!(inst, Inst::Let { dst, op: Op::Broadcast(_) } if *dst == ret));
    if already {
        return;
    }
    let deps = param_deps(f, f.ret);
    let wanted = f.declared_params;
    let covered = (0..wanted).all(|i| deps.contains(&i)) && !may_be_scalar(f, f.ret);
    if covered {
        return;
    }
    let kind = f.info(f.ret).kind;
    let dst = f.new_value(kind, crate::ir::Shape::Array, None);
    f.body.insts.push(Inst::Let {
        dst,
        op: Op::Broadcast(f.ret),
    });
    f.ret = dst;
}

/// Whether `v` can hold a Python scalar (or a 0-d value) at run time: a scalar op, or a loop
/// variable or Python-level merge fed by one. A loop runs at least once, so its variable ends as
/// the last `next`, or as its initial value where `next` hands the variable itself back.
fn may_be_scalar(f: &Function, v: Value) -> bool {
    use crate::ir::Shape;
    enum Def {
        Let(bool),
        Phi { init: Value, next: Value },
        Merge(Value, Value),
    }
    let mut defs: crate::Map<Value, Def> = crate::Map::default();
    crate::ir::walk_insts(&f.body, &mut |inst| match inst {
        Inst::Let { dst, op } => {
            let scalar = matches!(op, Op::AsArray(_) | Op::Placeholder(_))
                || f.info(*dst).shape == Shape::Scalar;
            defs.insert(*dst, Def::Let(scalar));
        }
        Inst::Loop { phis, .. } => {
            for p in phis {
                defs.insert(
                    p.dst,
                    Def::Phi {
                        init: p.init,
                        next: p.next,
                    },
                );
            }
        }
        Inst::If { outs, .. } => {
            for o in outs {
                defs.insert(o.dst, Def::Merge(o.then, o.other));
            }
        }
    });
    fn walk(
        defs: &crate::Map<Value, Def>,
        v: Value,
        visiting: &mut std::collections::BTreeSet<Value>,
    ) -> bool {
        match defs.get(&v) {
            Some(Def::Let(scalar)) => *scalar,
            // Reached again through its own `next`: the variable still holds its initial value.
            Some(Def::Phi { init, .. }) if visiting.contains(&v) => walk(defs, *init, visiting),
            Some(Def::Phi { next, .. }) => {
                visiting.insert(v);
                let r = walk(defs, *next, visiting);
                visiting.remove(&v);
                r
            }
            Some(Def::Merge(a, b)) => walk(defs, *a, visiting) || walk(defs, *b, visiting),
            // A loop index.
            None => true,
        }
    }
    walk(&defs, v, &mut std::collections::BTreeSet::new())
}

/// Which parameters `v` depends on, through operands, phis and merges.
fn param_deps(f: &Function, v: Value) -> std::collections::BTreeSet<usize> {
    use std::collections::BTreeSet;

    use crate::Map as HashMap;
    let mut deps_of: HashMap<Value, Vec<Value>> = HashMap::default();
    let mut params: HashMap<Value, usize> = HashMap::default();
    let mut loops: Vec<(Value, Value)> = vec![];
    crate::ir::walk_insts(&f.body, &mut |inst| match inst {
        Inst::Let { dst, op } => {
            if let Op::Param(i) = op {
                params.insert(*dst, *i);
            }
            deps_of.entry(*dst).or_default().extend(op.operands());
        }
        Inst::Loop { phis, .. } => {
            for p in phis {
                // A loop runs at least once: after it, the variable holds what the body gave it
                // (which carries the initial value along only if the body reads the variable).
                deps_of.entry(p.dst).or_default().push(p.next);
                loops.push((p.dst, p.init));
            }
        }
        Inst::If { cond, outs, .. } => {
            for o in outs {
                deps_of
                    .entry(o.dst)
                    .or_default()
                    .extend([o.then, o.other, *cond]);
            }
        }
    });
    let reaches = |from: Value, to: Value, deps_of: &HashMap<Value, Vec<Value>>| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            if x == to {
                return true;
            }
            if seen.insert(x) {
                stack.extend(deps_of.get(&x).into_iter().flatten().copied());
            }
        }
        false
    };
    for (dst, init) in loops {
        let next = deps_of.get(&dst).and_then(|d| d.first().copied());
        if next.is_some_and(|n| reaches(n, dst, &deps_of)) {
            deps_of.entry(dst).or_default().push(init);
        }
    }
    let mut seen = BTreeSet::new();
    let mut out = BTreeSet::new();
    let mut stack = vec![v];
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        if let Some(i) = params.get(&x) {
            out.insert(*i);
        }
        if let Some(ds) = deps_of.get(&x) {
            stack.extend(ds.iter().copied());
        }
    }
    out
}
