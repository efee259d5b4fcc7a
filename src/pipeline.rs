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
    /// The same IR with float64 parameters (the fast path's); printed only when asked for.
    pub float_ir: Function,
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
        float_ir: float,
        scalar_source: text.to_string(),
    })
}

/// Diagnostics in source order, each once.
fn render_all(mut diags: Vec<Diagnostic>, sources: &[SourceText]) -> Vec<Rendered> {
    diags.sort_by_key(|d| (d.source, d.start, d.end));
    diags.dedup_by(|a, b| a.source == b.source && a.start == b.start && a.kind == b.kind);
    diags.iter().map(|d| render(d, sources)).collect()
}

/// A result that does not carry the shape of every array parameter would not have the broadcast
/// shape of the inputs (think `return 1.0`, or a Python-level `if` on a constant whose other side
/// merges 0-d placeholders): spread it explicitly.
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
    // Beyond 64 parameters the analysis does not track shapes: broadcast (harmless when the
    // result had the shape already).
    let all: Params = match f.declared_params {
        64 => u64::MAX,
        n if n < 64 => (1u64 << n) - 1,
        _ => 0,
    };
    let covered = all != 0 && shaped_by(f, f.ret) == all;
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

/// A set of declared parameters, as a bit mask (parameter `i` is bit `i`).
type Params = u64;

/// The declared parameters whose shape `v` is sure to carry at run time, whichever path the
/// values take: an operation broadcasts its operands' shapes (their union); constants, 0-d
/// arrays and placeholders carry none; a Python-level merge (a scalar `if`, a ternary on a
/// scalar condition) carries what both sides carry; a loop variable, inside the loop, what its
/// initial and next values carry, and after the loop (which runs at least once, D6) what the
/// last `next` carries.
fn shaped_by(f: &Function, v: Value) -> Params {
    let mut g: Vec<Params> = vec![0; f.values.len()];
    shaped_block(f, &f.body, &mut g);
    g[v.index()]
}

fn shaped_block(f: &Function, block: &crate::ir::Block, g: &mut Vec<Params>) {
    use crate::ir::Shape;
    for inst in &block.insts {
        match inst {
            Inst::Let { dst, op } => {
                let s = match op {
                    Op::Param(i) if *i < f.declared_params && *i < 64 => 1u64 << i,
                    Op::Param(_) | Op::Const(_) | Op::AsArray(_) | Op::Placeholder(_) => 0,
                    Op::Broadcast(_) => u64::MAX,
                    Op::Select(c, a, b) if f.info(*c).shape == Shape::Scalar => {
                        g[a.index()] & g[b.index()]
                    }
                    _ => op.operands().iter().fold(0, |acc, o| acc | g[o.index()]),
                };
                g[dst.index()] = s;
            }
            Inst::Loop { phis, body, .. } => {
                for p in phis {
                    g[p.dst.index()] = g[p.init.index()];
                }
                // Inside the loop a variable is its initial value or a later one: shrink to
                // what all of them carry (the sets only shrink, so this ends).
                loop {
                    shaped_block(f, body, g);
                    let mut changed = false;
                    for p in phis {
                        let both = g[p.init.index()] & g[p.next.index()];
                        if both != g[p.dst.index()] {
                            g[p.dst.index()] = both;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                // Read before any is written: one phi's `next` may be another's `dst`.
                let after: Vec<Params> = phis.iter().map(|p| g[p.next.index()]).collect();
                for (p, s) in phis.iter().zip(after) {
                    g[p.dst.index()] = s;
                }
            }
            Inst::If {
                then, other, outs, ..
            } => {
                shaped_block(f, then, g);
                shaped_block(f, other, g);
                for o in outs {
                    g[o.dst.index()] = g[o.then.index()] & g[o.other.index()];
                }
            }
        }
    }
}
