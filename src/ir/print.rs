//! The IR's text form: stable and versioned, for snapshots, pass fixtures, the fuzz model and
//! `ARRAY_VECTORIZE_DEBUG=ir`. [`super::read`] reads it back; its module comment declares the
//! grammar, and a change of what is printed is a change of [`FORMAT_VERSION`] there.

use std::fmt::{self, Write as _};

use super::op::{Op, ScalarFn};
use super::read::FORMAT_VERSION;
use super::types::{Shape, Value};
use super::uniform::{ObjCmp, ObjLit, UniformOp};
use super::{Block, Function, Inst, ParamMode, Raises};

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "; ir-format: {FORMAT_VERSION}")?;
        writeln!(f, "fn {}({}) {{", self.name, signature(self))?;
        let mut out = String::new();
        print_block(self, &self.body, 1, &mut out);
        if let Some(r) = &self.raises {
            print_raises(r, &mut out);
        }
        f.write_str(&out)?;
        let ret: Vec<String> = self.ret.iter().map(|r| r.to_string()).collect();
        let class = self.result_class.map_or("", |i| self.params[i].as_str());
        let ret = match (self.tuple, ret.len()) {
            (true, 1) => format!("{class}({},)", ret[0]),
            (true, _) => format!("{class}({})", ret.join(", ")),
            _ => ret.join(", "),
        };
        writeln!(f, "  return {ret}")?;
        writeln!(f, "}}")
    }
}

/// `x, cfg: uniform; COEFFS`: the declared parameters with the mode of those not passed as
/// numbers (D14), then the hidden ones (D8) after a `;`.
fn signature(func: &Function) -> String {
    let declared = func.declared_params.min(func.params.len());
    let shown: Vec<String> = func.params[..declared]
        .iter()
        .enumerate()
        .map(|(i, p)| match func.mode(i) {
            ParamMode::Number => p.clone(),
            ParamMode::Uniform => format!("{p}: uniform"),
            ParamMode::Optional => format!("{p}: optional"),
        })
        .collect();
    let hidden = &func.params[declared..];
    let mut text = shown.join(", ");
    if !hidden.is_empty() {
        let _ = write!(text, "; {}", hidden.join(", "));
    }
    text
}

/// `raise if %c != 0`, then each site: `k (name = %v, ...): expression`, and its cause.
fn print_raises(r: &Raises, out: &mut String) {
    let nan = if r.nan { ", nan_on_raise" } else { "" };
    let _ = writeln!(out, "  raise if {} != 0{nan}", r.code);
    for (k, site) in r.sites.iter().enumerate() {
        let bound: Vec<String> = site
            .params
            .iter()
            .zip(&site.args)
            .map(|(p, a)| format!("{p} = {a}"))
            .collect();
        let expr = escape(&site.expr, false);
        let _ = writeln!(out, "    {} ({}): {expr}", k + 1, bound.join(", "));
        if let Some(cause) = &site.cause {
            let _ = writeln!(out, "      from: {}", escape(cause, false));
        }
    }
}

/// `s` with `\` and control characters escaped (`\\`, `\n`, `\r`, `\t`, `\u{7f}`), and `"` too
/// when `quoted` (the text then goes between quotes).
pub(super) fn escape(s: &str, quoted: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if quoted => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn ty(func: &Function, v: Value) -> String {
    let info = func.info(v);
    let shape = if info.shape == Shape::Scalar {
        "scalar "
    } else {
        ""
    };
    format!("{shape}{}", info.kind.name())
}

fn print_block(func: &Function, block: &Block, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for inst in &block.insts {
        match inst {
            Inst::Let { dst, op } => {
                let _ = writeln!(out, "{pad}{dst}: {} = {}", ty(func, *dst), print_op(op));
            }
            Inst::Loop {
                index,
                start,
                stop,
                step,
                items,
                phis,
                body,
                active,
            } => {
                match (active, items) {
                    (Some(a), _) => {
                        let _ = writeln!(out, "{pad}while any({a}) {{");
                    }
                    (None, Some(t)) => {
                        let _ = writeln!(out, "{pad}for {index} in {} {{", t.python_repr());
                    }
                    (None, None) => {
                        let _ =
                            writeln!(out, "{pad}for {index} in range({start}, {stop}, {step}) {{");
                    }
                }
                for phi in phis {
                    let _ = writeln!(
                        out,
                        "{pad}  {}: {} = phi({}, {})",
                        phi.dst,
                        ty(func, phi.dst),
                        phi.init,
                        phi.next
                    );
                }
                print_block(func, body, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Inst::If {
                cond,
                then,
                other,
                outs,
            } => {
                let _ = writeln!(out, "{pad}if {cond} {{");
                print_block(func, then, depth + 1, out);
                let _ = writeln!(out, "{pad}}} else {{");
                print_block(func, other, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
                for o in outs {
                    let _ = writeln!(
                        out,
                        "{pad}{}: {} = if_merge({}, {})",
                        o.dst,
                        ty(func, o.dst),
                        o.then,
                        o.other
                    );
                }
            }
        }
    }
}

fn print_op(op: &Op) -> String {
    let list = |vs: &[Value]| {
        vs.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match op {
        Op::Param(i) => format!("param {i}"),
        Op::Const(c) => format!("const {}", c.python_repr()),
        Op::Unary(o, a) => format!("{} {a}", format!("{o:?}").to_lowercase()),
        Op::Binary(o, a, b) => format!("{} {a}, {b}", format!("{o:?}").to_lowercase()),
        Op::Compare(o, a, b) => format!("{} {a}, {b}", format!("{o:?}").to_lowercase()),
        Op::Logic(o, a, b) => format!("{} {a}, {b}", format!("{o:?}").to_lowercase()),
        Op::Select(c, a, b) => format!("select {c}, {a}, {b}"),
        Op::Math(m, args) => format!("math.{}({})", m.ir_name(), list(args)),
        Op::Cast(o, a) => format!("cast.{} {a}", format!("{o:?}").to_lowercase()),
        Op::Index(a, b) => format!("index {a}[{b}]"),
        Op::ScalarCall { callee, args } => {
            let callee = match callee {
                ScalarFn::Residue(i) => format!("residue #{i}"),
                ScalarFn::Callable(i) => format!("call_site #{i}"),
                ScalarFn::Lambda(params, body) => {
                    // TEXT: one line whatever the source's (the reader's grammar).
                    let body = escape(body, false);
                    format!("call_site (lambda {}: {body})", params.join(", "))
                }
            };
            format!("{callee}({})", list(args))
        }
        Op::ScalarRaised(a) => format!("scalar_raised {a}"),
        Op::Call { callee, args } => format!("call @{callee}({})", list(args)),
        Op::Broadcast(a) => format!("broadcast {a}"),
        Op::AsArray(a) => format!("asarray {a}"),
        Op::Placeholder(c) => format!("placeholder {}", c.python_repr()),
        Op::Uniform(u, args) => format!("uniform {}({})", uniform_op(u), list(args)),
    }
}

/// `Arg(1)`, `Lit(Str("low"))`, `Compare(IsNot)`, `Truth`.
fn uniform_op(u: &UniformOp) -> String {
    let quote = |s: &str| format!("\"{}\"", escape(s, true));
    match u {
        UniformOp::Arg(i) => format!("Arg({i})"),
        UniformOp::Global(i) => format!("Global({i})"),
        UniformOp::Builtin(b) => format!("Builtin({})", quote(b)),
        UniformOp::Lit(ObjLit::None) => "Lit(None)".into(),
        UniformOp::Lit(ObjLit::Str(s)) => format!("Lit(Str({}))", quote(s)),
        UniformOp::Tuple => "Tuple".into(),
        UniformOp::Attr(a) => format!("Attr({})", quote(a)),
        UniformOp::Item => "Item".into(),
        UniformOp::Get => "Get".into(),
        UniformOp::StrMethod(m) => format!("StrMethod({})", quote(m)),
        UniformOp::Compare(c) => format!("Compare({})", obj_cmp_name(*c)),
        UniformOp::IsInstance => "IsInstance".into(),
        UniformOp::TypeOf => "TypeOf".into(),
        // D22: `ElementIs(bool|int)`, `ElementIs(none)`.
        UniformOp::ElementIs(types) => format!("ElementIs({types:?})"),
        UniformOp::Truth => "Truth".into(),
        UniformOp::Number => "Number".into(),
        UniformOp::NumberOrFalse => "NumberOrFalse".into(),
        UniformOp::Len => "Len".into(),
        UniformOp::Sequence => "Sequence".into(),
        UniformOp::Reduce(r) => format!("Reduce({})", quote(r)),
        UniformOp::Unpack(n) => format!("Unpack({n})"),
    }
}

/// The name of a uniform comparison in the text (the reader's inverse: [`super::read`]).
pub(super) fn obj_cmp_name(c: ObjCmp) -> &'static str {
    match c {
        ObjCmp::Eq => "Eq",
        ObjCmp::Ne => "Ne",
        ObjCmp::Is => "Is",
        ObjCmp::IsNot => "IsNot",
        ObjCmp::In => "In",
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::ir_after;

    #[test]
    fn a_loop_prints_its_phis_at_its_head() {
        let src = "def f(x):\n    for i in range(2):\n        x = x * 2.0\n    return x\n";
        let text = ir_after(src, "lower").to_string();
        assert!(
            text.starts_with("; ir-format: 1\nfn f(x) {\n  %0: num = param 0\n"),
            "{text}"
        );
        let head = text.find(" in range(0, 2, 1) {").expect("a loop");
        let phi = text.find(" = phi(%0, ").expect("a phi");
        assert!(head < phi, "{text}");
        assert!(text.ends_with("}\n"), "{text}");
    }

    #[test]
    fn escapes_keep_a_text_on_its_line() {
        assert_eq!(
            super::escape("a\\b\n\"c\"\u{7}", false),
            "a\\\\b\\n\"c\"\\u{7}"
        );
        assert_eq!(super::escape("say \"hi\"\t", true), "say \\\"hi\\\"\\t");
    }
}
