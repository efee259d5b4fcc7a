//! The value of a module-level expression the static compile can compute exactly (issue 31,
//! DESIGN.md section 4): `RAD = pi / 180.0`, `TWO_PI = 2 * math.pi`, `LIMIT = to_rad(90.0)`
//! with `to_rad` a helper of the program.
//!
//! The expression is lowered as the body of a function, by the same lowering that compiles
//! helpers (so a helper it calls is inlined, and only code the compiler accepts as pure, D7,
//! gets this far), and folded by the same folder, whose evaluation is CPython's or nothing
//! (`ir::eval::fold_op`: no transcendental function, no float `//`, no int beyond int64, no
//! division by zero). The value counts only when every position of the result folds to a
//! constant and nothing can raise; anything else stays the running module's to compute. The
//! names it read are not assumptions: the constant's value is, checked when the decorator runs.

use rustpython_parser::ast::{self, Ranged};

use super::Passes;
use crate::diagnostics::SourceText;
use crate::env::Env;
use crate::frontend::extract::ParsedFunction;
use crate::frontend::tree::ParsedModule;
use crate::frontend::validate;
use crate::ir::{walk_insts, Const, Function, Inst, Kind, Op};
use crate::lower::{Lowerer, Options};

/// The constant `expr` (of `module`, its free names resolved in `env`) evaluates to, when the
/// static compile can tell exactly.
pub fn constant_value(expr: &ast::Expr, module: &ParsedModule, env: &Env) -> Option<Const> {
    let mut sources = vec![SourceText::shared(
        &module.path,
        module.text.clone(),
        module.index.clone(),
    )];
    let range = expr.range();
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    // A function of one unused parameter (lowering wants one) returning the expression.
    let func = ParsedFunction {
        source: 0,
        name: "<constant>".into(),
        params: vec!["_vec_unused".into()],
        kwonly: 0,
        posonly: 0,
        body: vec![ast::Stmt::Return(ast::StmtReturn {
            range,
            value: Some(Box::new(expr.clone())),
        })],
        start,
        end,
        star_params: vec![],
        defaults: vec![None],
        hints: vec![(None, false)],
    };
    let mut diags = vec![];
    validate::validate(&func, &mut diags);
    if !diags.is_empty() {
        return None;
    }
    let (lowered, diags) = Lowerer::new(&mut sources, Options::default()).lower(&func, env);
    let lowered = lowered?;
    if !diags.is_empty() || !lowered.deferred.is_empty() || !lowered.callees.is_empty() {
        return None;
    }
    let mut f = lowered.func;
    if f.raises.is_some() {
        return None;
    }
    let mut passes = Passes {
        debug: false,
        observe: &mut |_, _| {},
        prefix: "",
    };
    passes
        .simplify(&mut f, &[Kind::Float], &mut |_, _| Kind::Unknown)
        .ok()?;
    returned_constant(&f)
}

/// What `f` returns when every position of its result is a constant of its top block.
fn returned_constant(f: &Function) -> Option<Const> {
    let mut consts = std::collections::BTreeMap::new();
    walk_insts(&f.body, &mut |inst| {
        if let Inst::Let {
            dst,
            op: Op::Const(c),
        } = inst
        {
            consts.insert(*dst, c.clone());
        }
    });
    let values: Vec<Const> = f
        .ret
        .iter()
        .map(|v| consts.get(v).cloned())
        .collect::<Option<_>>()?;
    match (f.tuple, values.as_slice()) {
        (false, [one]) => Some(one.clone()),
        (true, _) => Some(Const::Tuple(values)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::env;

    fn value(text: &str, bindings: &[(&str, crate::env::Binding)]) -> Option<Const> {
        let module = ParsedModule::parse(text, "m.py").expect("parses");
        let ast::Stmt::Assign(a) = &module.body[0] else {
            panic!("an assignment");
        };
        constant_value(&a.value, &module, &env(bindings))
    }

    #[test]
    fn constant_expressions_fold_as_cpython_computes_them() {
        use crate::env::Binding;
        let pi = [("pi", Binding::MathMember("pi".into()))];
        assert_eq!(
            value("RAD = pi / 180.0\n", &pi),
            Some(Const::Float(std::f64::consts::PI / 180.0))
        );
        assert_eq!(
            value("K = 2 * math.pi\n", &[]),
            Some(Const::Float(2.0 * std::f64::consts::PI))
        );
        assert_eq!(value("N = 7 // 2 + 1\n", &[]), Some(Const::Int(4)));
        assert_eq!(
            value("P = (1.0 / 4, -3)\n", &[]),
            Some(Const::Tuple(vec![Const::Float(0.25), Const::Int(-3)]))
        );
        // Float `//` and `%` fold as CPython's float_divmod computes them (src/ir/eval.rs).
        assert_eq!(value("F = 7.5 // 2.0\n", &[]), Some(Const::Float(3.0)));
        assert_eq!(value("M = -7.5 % 2.0\n", &[]), Some(Const::Float(0.5)));
        // Not exactly CPython's in Rust (libm), a ZeroDivisionError, an int beyond int64, a
        // name the environment does not give: left to the running module.
        for text in [
            "S = math.sin(1.0)\n",
            "Z = 1.0 / 0.0\n",
            "B = 2 ** 70\n",
            "U = unknown * 2.0\n",
            "Q = 7.5 // 0.0\n",
        ] {
            assert_eq!(value(text, &[]), None, "{text}");
        }
    }
}
