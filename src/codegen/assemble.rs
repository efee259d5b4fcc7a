//! The generated module: the entry, with the original's signature, whose float prologue falls
//! back to the exact body; and the exact body, `_vec_exact_<name>`, which runs the int body
//! first when its int prologue takes the arguments. Prints them as two texts whose
//! concatenation is the module (emit compiles the exact body on its first call).

use std::collections::BTreeSet;

use super::callee::{CallTargets, Emitted};
use super::runtime::{
    EXACT_ARGS, FLOAT_ARGS, HELPERS, INT_ARGS, LANEWISE_INT_CALLS, MIXED_ARGS, SELECT, UNIFORM,
};
use super::{unique, Function, Gen, Hidden, PYTHON_NAMES};
use crate::codegen::pyast::{self, call, cmp, name, Expr, Stmt};
use crate::ir::{Kind, ParamMode};

/// How the declared parameters split: the first `posonly` are positional-only, the last
/// `kwonly` keyword-only.
#[derive(Debug, Clone, Copy)]
pub struct Signature {
    pub posonly: usize,
    pub kwonly: usize,
}

/// The generated module, as two texts: `fast_source + exact_source` is the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The function to call: the original's name (`_lambda` for a lambda).
    pub entry: String,
    /// The function the entry calls when its arguments are not all floats.
    pub exact_entry: String,
    /// The entry's definition.
    pub fast_source: String,
    /// The exact body's definition, after the blank lines that separate it from the entry's.
    pub exact_source: String,
    /// The functions of out-of-line helpers (D7) that `fast_source` defines after the entry, in
    /// order: emit runs that text for them, since the cached code of the entry defines none.
    pub helpers: Vec<String>,
    /// Those `exact_source` defines after the exact body.
    pub exact_helpers: Vec<String>,
    /// Whether the exact body has an int body that calls only `xp` functions and
    /// `LANEWISE_INT_CALLS`: plain int64 and bool array operations of kinds fixed at compile
    /// time (choice.rs), so runtime/blocked.py may run a large int64 call of it in blocks
    /// (issue 30). Codegen's fact, never found by searching the text (ARCHITECTURE.md).
    pub int_lanewise: bool,
    /// The kinds of the mixed body's prologue (`i` or `f` per array parameter: the string
    /// `_vec_mixed_args` is given) when there is a mixed body and it is lane-wise as
    /// `int_lanewise` says of the int body, so runtime/blocked.py may run a large call of
    /// those kinds in blocks (issue 30); else None.
    pub mixed_lanewise: Option<String>,
}

impl Generated {
    /// The whole module text.
    pub fn source(&self) -> String {
        [self.fast_source.as_str(), self.exact_source.as_str()].concat()
    }
}

/// The names of one generated module: parameters, their locals, and the names both bodies use.
struct Names {
    /// Declared, then hidden arrays (D8): what the argument prologues convert.
    array_params: Vec<String>,
    /// The local variable of each parameter (a hidden array gets its own).
    locals: Vec<String>,
    /// The locals of `array_params`.
    local_arrays: Vec<String>,
    xp: String,
    /// The float prologue's result.
    arrays: String,
    /// Every name a body must not give a value.
    taken: BTreeSet<String>,
    /// Per entry of `array_params`: whether it may be `None` (D14, [`ParamMode::Optional`]).
    optional: Vec<bool>,
    /// Declared parameters passed as uniform values (D14): never converted.
    uniform: Vec<String>,
}

impl Names {
    fn new(f: &Function, hidden: &[Hidden]) -> Self {
        // Array parameters go through the argument prologues; callees do not. Hidden values (D8)
        // are globals of the generated module, bound by emit: the entry's signature is exactly
        // the original's.
        let array_params: Vec<String> = f
            .params
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                if *i < f.declared_params {
                    f.mode(*i) != ParamMode::Uniform
                } else {
                    matches!(hidden.get(i - f.declared_params), Some(Hidden::Array(_)))
                }
            })
            .map(|(_, p)| p.clone())
            .collect();
        let optional = f
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| array_params.contains(p))
            .map(|(i, _)| i < f.declared_params && f.mode(i) == ParamMode::Optional)
            .collect();
        let uniform = (0..f.declared_params)
            .filter(|i| f.mode(*i) == ParamMode::Uniform)
            .map(|i| f.params[i].clone())
            .collect();
        let reserved: BTreeSet<String> = f
            .params
            .iter()
            .cloned()
            .chain(HELPERS.iter().map(|h| h.name.to_string()))
            .chain(PYTHON_NAMES.iter().map(|s| s.to_string()))
            .collect();
        let xp = unique("xp", &reserved);
        let arrays = unique("arrays", &reserved);
        let mut taken = reserved;
        taken.insert(xp.clone());
        taken.insert(arrays.clone());
        // A hidden array is read from the module's globals and converted into a local of its own
        // (a local of the same name would make the global unreadable in the function).
        let locals: Vec<String> = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                // A parameter that may be None keeps its name for the argument as passed (`is
                // None` reads it); its converted value gets a local of its own.
                if i < f.declared_params && f.mode(i) == ParamMode::Optional {
                    let local = unique(&format!("{p}_value"), &taken);
                    taken.insert(local.clone());
                    return local;
                }
                if i < f.declared_params {
                    return p.clone();
                }
                let local = unique(&format!("{}_array", p.to_lowercase()), &taken);
                taken.insert(local.clone());
                local
            })
            .collect();
        let local_arrays = f
            .params
            .iter()
            .zip(&locals)
            .filter(|(p, _)| array_params.contains(p))
            .map(|(_, l)| l.clone())
            .collect();
        Names {
            array_params,
            locals,
            local_arrays,
            xp,
            arrays,
            taken,
            optional,
            uniform,
        }
    }

    /// `xp, a, b = <rhs>`: the namespace and the converted arrays.
    fn unpack(&self, rhs: Expr) -> Stmt {
        let mut targets = vec![self.xp.clone()];
        targets.extend(self.local_arrays.iter().cloned());
        Stmt::Assign(targets, vec![rhs])
    }

    /// `prologue(a, b)`; a parameter `p` that may be None passes `stand_in if p is None else
    /// p` (a value no path that runs reads: `is None` decides which code runs, in Python).
    fn prologue_call(&self, prologue: &str, stand_in: Expr) -> Expr {
        let args = self
            .array_params
            .iter()
            .zip(&self.optional)
            .map(|(p, optional)| {
                if *optional {
                    Expr::IfExp(
                        Box::new(cmp("is", name(p), Expr::None)),
                        Box::new(stand_in.clone()),
                        Box::new(name(p)),
                    )
                } else {
                    name(p)
                }
            })
            .collect();
        call(name(prologue), args)
    }

    /// `p = _vec_uniform(p, "p")` for every uniform parameter: an array passed where the
    /// function reads a per-call object is an error naming the parameter (D14).
    fn uniform_checks(&self) -> Vec<Stmt> {
        self.uniform
            .iter()
            .map(|p| {
                Stmt::Assign(
                    vec![p.clone()],
                    vec![call(
                        name(UNIFORM.name),
                        vec![name(p), Expr::Text(p.clone())],
                    )],
                )
            })
            .collect()
    }

    /// `arrays = <prologue>`, then `body` when it is not None (after unpacking it): the int or
    /// the mixed body in the exact body's function.
    fn typed_body(&self, prologue: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        let mut block = vec![self.unpack(name(&self.arrays))];
        block.extend(body);
        vec![
            Stmt::Assign(vec![self.arrays.clone()], vec![prologue]),
            Stmt::If(cmp("is not", name(&self.arrays), Expr::None), block, vec![]),
        ]
    }

    /// The kinds of the array parameters of `f`, in the prologue's order: `f` for a float, `i`
    /// for an int (`_vec_mixed_args`'s first argument).
    fn kinds_spec(&self, f: &Function, kinds: &[Kind]) -> String {
        f.params
            .iter()
            .zip(kinds)
            .filter(|(p, _)| self.array_params.contains(p))
            .map(|(_, k)| if *k == Kind::Float { 'f' } else { 'i' })
            .collect()
    }

    /// The statements of one body; `float_body`: the entry's, whose arguments are all floats.
    fn body(&self, ir: &Function, float_body: bool, calls: &Emitted) -> Vec<Stmt> {
        let wide_params = vec![false; ir.params.len()];
        let mut gen = Gen::new(
            ir,
            &self.xp,
            &self.taken,
            &self.local_arrays,
            &self.locals,
            (&wide_params, Some(calls)),
        );
        if float_body {
            gen = gen.for_float_body();
        }
        gen.function_body()
    }
}

/// The optimized IRs of one function, one per body (src/pipeline.rs).
#[derive(Clone, Copy)]
pub struct Bodies<'a> {
    /// With float64 parameters: the entry's body (the float fast path).
    pub float: &'a Function,
    /// With int64 parameters: the int body, run by the exact body's function when
    /// `_vec_int_args` takes the arguments.
    pub int: &'a Function,
    /// With int64 and float64 parameters, of these kinds: the mixed body, run when
    /// `_vec_mixed_args` takes the arguments (src/analysis/mixed.rs).
    pub mixed: Option<(&'a Function, &'a [Kind])>,
    /// With parameters of unknown kind: the exact body.
    pub exact: &'a Function,
}

/// The generated module of the three `bodies`, with the functions of the out-of-line helpers
/// they call (`targets`, D7).
pub fn generate(
    bodies: Bodies,
    hidden: &[Hidden],
    signature: Signature,
    targets: &CallTargets,
) -> Generated {
    let Bodies {
        float: float_ir,
        int: int_ir,
        mixed,
        exact: exact_ir,
    } = bodies;
    let mut irs = vec![float_ir, int_ir, exact_ir];
    irs.extend(mixed.map(|(f, _)| f));
    let calls = Emitted::new(targets, &irs);
    let entry = python_name(&exact_ir.name);
    let exact_entry = format!("_vec_exact_{entry}");
    let declared = &exact_ir.params[..exact_ir.declared_params];
    let names = Names::new(exact_ir, hidden);

    // args = _vec_float_args(a, b); the exact body when it is None; else unpacked.
    // The stand-in for a None argument is a float in the float body (which it keeps on the
    // fast path) and `False` in the exact body (the narrowest kind: it widens no merge).
    let mut float_body = vec![Stmt::Assign(
        vec![names.arrays.clone()],
        vec![names.prologue_call(FLOAT_ARGS.name, Expr::Float(0.0))],
    )];
    float_body.extend(names.uniform_checks());
    let pass_through = call(
        name(&exact_entry),
        declared.iter().map(|p| name(p)).collect(),
    );
    float_body.push(Stmt::If(
        cmp("is", name(&names.arrays), Expr::None),
        vec![Stmt::Return(pass_through)],
        vec![],
    ));
    float_body.push(names.unpack(name(&names.arrays)));
    float_body.extend(names.body(float_ir, true, &calls));
    let float_helpers = calls.drain();

    // arrays = _vec_int_args(a, b); the int body when it is not None; then the exact body.
    // The int body is left out where it would print as the exact body does (no operation of
    // it depends on knowing the parameters are ints).
    let int_stmts = names.body(int_ir, false, &calls);
    let mut exact_helpers = calls.drain();
    let mixed_stmts = mixed.map(|(ir, kinds)| (names.body(ir, false, &calls), kinds));
    exact_helpers.extend(calls.drain());
    let exact_stmts = names.body(exact_ir, false, &calls);
    exact_helpers.extend(calls.drain());
    let mut exact_body = vec![];
    let has_int_body = int_stmts != exact_stmts;
    let int_lanewise = has_int_body && calls_only_lanewise(&int_stmts);
    if has_int_body {
        let prologue = names.prologue_call(INT_ARGS.name, Expr::Bool(false));
        exact_body.extend(names.typed_body(prologue, int_stmts));
    }
    // The mixed body (issue 30), for calls of int64 and float64 arguments of its kinds.
    let mut mixed_lanewise = None;
    if let Some((stmts, kinds)) = mixed_stmts.filter(|(stmts, _)| *stmts != exact_stmts) {
        let spec = names.kinds_spec(exact_ir, kinds);
        let mut prologue = names.prologue_call(MIXED_ARGS.name, Expr::Bool(false));
        if let Expr::Call(_, args, _) = &mut prologue {
            args.insert(0, Expr::Text(spec.clone()));
        }
        mixed_lanewise = calls_only_lanewise(&stmts).then_some(spec);
        exact_body.extend(names.typed_body(prologue, stmts));
    }
    exact_body.push(names.unpack(names.prologue_call(EXACT_ARGS.name, Expr::Bool(false))));
    exact_body.extend(exact_stmts);

    let positional = declared[..declared.len() - signature.kwonly].to_vec();
    let kwonly = declared[declared.len() - signature.kwonly..].to_vec();
    let fast = Stmt::Def {
        name: entry.clone(),
        params: positional,
        posonly: signature.posonly,
        kwonly,
        body: float_body,
    };
    let exact = Stmt::Def {
        name: exact_entry.clone(),
        params: declared.to_vec(),
        posonly: 0,
        kwonly: vec![],
        body: exact_body,
    };
    let mut fast_source = pyast::module_part(&fast, true);
    let mut exact_source = pyast::module_part(&exact, false);
    for (helpers, text) in [
        (&float_helpers, &mut fast_source),
        (&exact_helpers, &mut exact_source),
    ] {
        for h in helpers {
            text.push_str(&pyast::module_part(h, false));
        }
    }
    Generated {
        entry,
        exact_entry,
        fast_source,
        exact_source,
        helpers: def_names(&float_helpers),
        exact_helpers: def_names(&exact_helpers),
        int_lanewise,
        mixed_lanewise,
    }
}

/// Whether `stmts` call no global but `LANEWISE_INT_CALLS` (`xp` functions are attributes) and
/// `_vec_select` of two Python floats, whose result is float64 on every lane whichever side
/// each lane takes (runtime/select.py: no whole-array decision).
fn calls_only_lanewise(stmts: &[Stmt]) -> bool {
    let float = |e: &Expr| match e {
        Expr::Float(_) => true,
        Expr::Neg(x) => matches!(x.as_ref(), Expr::Float(_)),
        _ => false,
    };
    let mut lanewise = true;
    for s in stmts {
        pyast::calls(s, &mut |n, args| {
            let floats = n == SELECT.name && args.len() == 4 && float(&args[2]) && float(&args[3]);
            lanewise &= floats || LANEWISE_INT_CALLS.contains(&n);
        });
    }
    lanewise
}

/// The names of the functions `defs` define (each is a `def`: `Emitted::drain`).
fn def_names(defs: &[Stmt]) -> Vec<String> {
    defs.iter()
        .filter_map(|d| match d {
            Stmt::Def { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

fn python_name(n: &str) -> String {
    if n == "<lambda>" {
        "_lambda".into()
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn the_two_texts_make_the_module_and_each_defines_one_function() {
        let c = compiled("def f(a, /, b, *, c):\n    return a + b * c\n");
        let g = &c.generated;
        assert_eq!(g.source(), c.source);
        assert_eq!(
            (g.entry.as_str(), g.exact_entry.as_str()),
            ("f", "_vec_exact_f")
        );
        assert!(g.fast_source.starts_with("def f(a, /, b, *, c):\n    arrays = _vec_float_args(a, b, c)\n    if arrays is None:\n        return _vec_exact_f(a, b, c)\n    xp, a, b, c = arrays\n"), "{}", g.fast_source);
        // The int body first (its arguments all ints), then the exact body.
        assert!(
            g.exact_source.starts_with(
                "\n\ndef _vec_exact_f(a, b, c):\n    arrays = _vec_int_args(a, b, c)\n    if arrays is not None:\n        xp, a, b, c = arrays\n        return a + b * c\n    xp, a, b, c = _vec_exact_args(a, b, c)\n"
            ),
            "{}",
            g.exact_source
        );
        assert_eq!(g.fast_source.matches("def ").count(), 1);
    }

    #[test]
    fn the_int_body_is_left_out_where_it_would_print_as_the_exact_body() {
        // `x` only gives the result its shape: knowing it is an int changes nothing.
        let c = compiled("def f(x):\n    return 2.5\n");
        assert!(
            !c.generated.exact_source.contains("_vec_int_args"),
            "{}",
            c.source
        );
        let c = compiled("def f(year):\n    return year % 4 == 0\n");
        assert!(
            c.generated
                .exact_source
                .contains("        return year & 3 == 0\n"),
            "{}",
            c.source
        );
    }

    #[test]
    fn the_int_body_is_lanewise_when_it_calls_only_xp_and_lanewise_helpers() {
        // Issue 30: codegen's fact, which runtime/blocked.py reads to block large int64 calls.
        let lanewise = |src: &str| compiled(src).generated.int_lanewise;
        assert!(lanewise(
            "def f(y):\n    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)\n"
        ));
        assert!(lanewise("def f(n):\n    return n // 7 + n % -3\n"));
        // A table gather and a `while` mask's test are lane-wise.
        assert!(lanewise("def f(m):\n    return (0, 31, 59, 90)[m % 4]\n"));
        assert!(lanewise(
            "def f(n):\n    k = 0\n    while n > 0:\n        n = n // 10\n        k = k + 1\n    return k\n"
        ));
        // `_vec_binary` (a divisor that may be 0 or -1; shift counts beyond 63).
        let c = compiled("def f(n, m):\n    d = m % 3 - 1\n    return n // d\n");
        assert!(
            c.generated.exact_source.contains("_vec_binary"),
            "{}",
            c.source
        );
        assert!(!c.generated.int_lanewise, "{}", c.source);
        assert!(!lanewise("def f(n, k):\n    return n << (k % 70)\n"));
        // No int body at all.
        assert!(!lanewise("def f(x):\n    return 2.5\n"));
    }

    #[test]
    fn prologue_names_avoid_parameters_and_a_lambda_is_named() {
        let env = crate::env::Env::new();
        let req = crate::pipeline::Request {
            input: crate::frontend::Input::Text {
                source: "g = vectorize(lambda xp, arrays: xp * arrays)\n",
                path: "t.py",
                first_line: 1,
            },
            name: "<lambda>",
            env: &env,
            options: crate::pipeline::Options::default(),
        };
        let c = crate::pipeline::compile_function(&req).expect("compiles");
        let g = &c.generated;
        assert_eq!(g.entry, "_lambda");
        assert!(
            g.fast_source
                .contains("arrays_1 = _vec_float_args(xp, arrays)"),
            "{}",
            g.fast_source
        );
        assert!(
            g.fast_source.contains("xp_1, xp, arrays = arrays_1"),
            "{}",
            g.fast_source
        );
    }
}
