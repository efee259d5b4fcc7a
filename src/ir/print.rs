//! The IR's text form: stable, for snapshots, pass fixtures and `ARRAY_VECTORIZE_DEBUG=ir`.

use std::fmt::{self, Write as _};

use super::op::{Op, ScalarFn};
use super::types::{Shape, Value};
use super::{Block, Function, Inst};

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fn {}({}) {{", self.name, self.params.join(", "))?;
        let mut out = String::new();
        print_block(self, &self.body, 1, &mut out);
        f.write_str(&out)?;
        if let Some(r) = &self.raises {
            writeln!(f, "  raise if {} != 0", r.code)?;
            for (k, site) in r.sites.iter().enumerate() {
                let args: Vec<String> = site.args.iter().map(|a| a.to_string()).collect();
                writeln!(f, "    {}: {} with ({})", k + 1, site.expr, args.join(", "))?;
            }
        }
        let ret: Vec<String> = self.ret.iter().map(|r| r.to_string()).collect();
        let ret = match (self.tuple, ret.len()) {
            (true, 1) => format!("({},)", ret[0]),
            (true, _) => format!("({})", ret.join(", ")),
            _ => ret.join(", "),
        };
        writeln!(f, "  return {ret}")?;
        writeln!(f, "}}")
    }
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
        Op::Math(m, args) => format!("math.{}({})", m.name, list(args)),
        Op::Cast(o, a) => format!("cast.{} {a}", format!("{o:?}").to_lowercase()),
        Op::Index(a, b) => format!("index {a}[{b}]"),
        Op::ScalarCall { callee, args } => {
            let callee = match callee {
                ScalarFn::Residue(i) => format!("residue #{i}"),
                ScalarFn::Callable(i) => format!("call_site #{i}"),
                ScalarFn::Lambda(params, body) => {
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
        Op::Uniform(u, args) => format!("uniform {u:?}({})", list(args)),
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
            text.starts_with("fn f(x) {\n  %0: num = param 0\n"),
            "{text}"
        );
        let head = text.find(" in range(0, 2, 1) {").expect("a loop");
        let phi = text.find(" = phi(%0, ").expect("a phi");
        assert!(head < phi, "{text}");
        assert!(text.ends_with("}\n"), "{text}");
    }
}
