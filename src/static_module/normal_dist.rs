//! A `statistics.NormalDist` bound at module level, read from module text for the static compile
//! (import hook, build backend; issue 27, D8, D17), as the decorator binds the live object
//! (environment.py `normal_dist_attributes`):
//!
//! ```python
//! from statistics import NormalDist
//! IQ = NormalDist(100, 15)     # Namespace {_mu: 100.0, _sigma: 15.0, mean, stdev, variance,
//!                              #            cdf, pdf, inv_cdf: ClassMethod of statistics.py}
//! ```
//!
//! `mu` and `sigma` are numbers the text gives (literals, module constants the static compile
//! computes exactly: `pipeline::constant`), positional or as `mu=`/`sigma=`; the methods are the
//! text of the interpreter's own `statistics.py` (handed over by the caller, imports.rs), `self`
//! bound to the namespace, and `inv_cdf` calls the Python `_normal_dist_inv_cdf` of that text,
//! which CPython may replace by its C twin of the same operations, as the decorator reads it.
//!
//! Assumptions, checked at import (precompiled.py): each method called is `stdlib_method`
//! (`type(IQ) is statistics.NormalDist`, the method is the class's, and `statistics.py`'s text
//! hashes as the compiled one, so another interpreter's recompiles); `IQ._mu`, `IQ._sigma` and
//! the properties read are constants under their dotted names. Any other shape (arguments the
//! text does not pin, a rebinding, a module that did not hand `statistics.py` over) stays
//! unresolved with the reason, for the decorator to read the live object.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustpython_parser::ast;

use crate::env::{Binding, Env, FunctionCode, FunctionSource, ALIAS_PREFIX, LIVE_OBJECT};
use crate::frontend::tree::{FunctionTree, ParsedModule};
use crate::ir::Const;
use crate::static_module::imports::{EnvOfModule, Imports};
use crate::Map as HashMap;

/// The methods compiled from CPython's text (the others are left to the decorator, which
/// refuses them with their position).
const METHODS: &[&str] = &["cdf", "pdf", "inv_cdf"];

/// The attributes of a NormalDist that hold its parameters or are computed from them: frozen.
const FROZEN: &[&str] = &["_mu", "_sigma", "mean", "stdev", "variance"];

/// The names the module binds once to `statistics` (`import statistics [as s]`) and to its
/// `NormalDist` (`from statistics import NormalDist [as N]`).
fn constructors(body: &[ast::Stmt], count: &HashMap<String, usize>) -> (Vec<String>, Vec<String>) {
    let once = |n: &str| count.get(n) == Some(&1);
    let (mut modules, mut classes) = (vec![], vec![]);
    for stmt in body {
        match stmt {
            ast::Stmt::Import(i) => {
                for a in &i.names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).as_str();
                    if a.name.as_str() == "statistics" && once(bound) {
                        modules.push(bound.to_string());
                    }
                }
            }
            ast::Stmt::ImportFrom(i)
                if i.module.as_ref().map(|m| m.as_str()) == Some("statistics")
                    && i.level.is_none_or(|l| l.to_u32() == 0) =>
            {
                for a in &i.names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).as_str();
                    if a.name.as_str() == "NormalDist" && once(bound) {
                        classes.push(bound.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    (modules, classes)
}

/// Binds each top-level `NAME = NormalDist(mu, sigma)` (also `statistics.NormalDist(...)`, an
/// alias of either) whose `NAME` is bound once (D8).
pub(crate) fn bind_normal_dists(
    module: &Arc<ParsedModule>,
    imports: &Imports,
    env_of_module: EnvOfModule,
    count: &HashMap<String, usize>,
    bindings: &mut BTreeMap<String, Binding>,
) {
    let (modules, classes) = constructors(&module.body, count);
    if modules.is_empty() && classes.is_empty() {
        return;
    }
    let mut statistics = None;
    for stmt in &module.body {
        let ast::Stmt::Assign(a) = stmt else {
            continue;
        };
        let ([ast::Expr::Name(target)], ast::Expr::Call(call)) =
            (a.targets.as_slice(), a.value.as_ref())
        else {
            continue;
        };
        let made = match call.func.as_ref() {
            ast::Expr::Name(n) => classes.iter().any(|c| c == n.id.as_str()),
            ast::Expr::Attribute(at) => {
                at.attr.as_str() == "NormalDist"
                    && matches!(at.value.as_ref(), ast::Expr::Name(m) if modules.iter().any(|x| x == m.id.as_str()))
            }
            _ => false,
        };
        let name = target.id.as_str();
        if !made || count.get(name) != Some(&1) {
            continue;
        }
        let binding = match parameters(module, call, bindings) {
            None => Binding::Unresolved(format!(
                "`{name}`, a `statistics.NormalDist` whose `mu` and `sigma` the module's text does not give as numbers (literals or constants of the module, `sigma` not negative){LIVE_OBJECT} (issue 27)"
            )),
            Some((mu, sigma)) => {
                let stats = statistics
                    .get_or_insert_with(|| imports.parsed("statistics", env_of_module));
                match stats {
                    Some((stats, env, exceptions)) => {
                        normal_dist(name, mu, sigma, stats, env, exceptions)
                    }
                    None => Binding::Unresolved(format!(
                        "`{name}`, a `statistics.NormalDist`, whose methods are compiled from the standard library's `statistics.py`, which the static compile was not given{LIVE_OBJECT} (issue 27)"
                    )),
                }
            }
        };
        bindings.insert(name.to_string(), binding);
    }
}

/// `float(mu)` and `float(sigma)` of the call `NormalDist(mu=0.0, sigma=1.0)`, when the text
/// gives both as numbers (an int exactly a float) and `sigma` is not negative (CPython raises
/// StatisticsError at import otherwise).
fn parameters(module: &ParsedModule, call: &ast::ExprCall, bindings: &Env) -> Option<(f64, f64)> {
    if call.args.len() > 2 || call.args.iter().any(|a| matches!(a, ast::Expr::Starred(_))) {
        return None;
    }
    let mut given: [Option<&ast::Expr>; 2] = [call.args.first(), call.args.get(1)];
    for k in &call.keywords {
        let slot = match k.arg.as_ref().map(|a| a.as_str()) {
            Some("mu") => 0,
            Some("sigma") => 1,
            _ => return None,
        };
        if given[slot].replace(&k.value).is_some() {
            return None; // CPython's TypeError: the argument given twice
        }
    }
    let mut env = bindings.clone();
    crate::static_module::add_builtins(&mut env);
    let number = |e: Option<&ast::Expr>, default: f64| -> Option<f64> {
        let Some(e) = e else {
            return Some(default);
        };
        match crate::pipeline::constant::constant_value(e, module, &env)? {
            Const::Float(f) => Some(f),
            // `float(i)`, exact for these (larger ones: the decorator reads the live value).
            Const::Int(i) if i.unsigned_abs() <= 1 << 53 => Some(i as f64),
            _ => None,
        }
    };
    let (mu, sigma) = (number(given[0], 0.0)?, number(given[1], 1.0)?);
    (sigma >= 0.0 || sigma.is_nan()).then_some((mu, sigma))
}

/// The namespace of `name = NormalDist(mu, sigma)`: its frozen attributes and its methods of
/// `statistics.py`'s class (`stats`), which read that module's names (`env`, scoped) and raise
/// its StatisticsError (`exceptions`, D11).
fn normal_dist(
    name: &str,
    mu: f64,
    sigma: f64,
    stats: &Arc<ParsedModule>,
    env: &Env,
    exceptions: &Env,
) -> Binding {
    let Some((at, class)) = stats.body.iter().enumerate().find_map(|(i, s)| match s {
        ast::Stmt::ClassDef(c) if c.name.as_str() == "NormalDist" => Some((i, c)),
        _ => None,
    }) else {
        return Binding::Unresolved(format!(
            "`{name}`, a `statistics.NormalDist`, whose class is not in `statistics.py`'s text{LIVE_OBJECT}"
        ));
    };
    let values = [mu, sigma, mu, sigma, sigma * sigma];
    let mut attrs: Env = FROZEN
        .iter()
        .zip(values)
        .map(|(a, v)| (a.to_string(), Binding::Const(Const::Float(v))))
        .collect();
    // What the methods read: the module's names, its exception classes (a global of the generated
    // code, D11), `self`'s attributes recorded under the importer's dotted names, and the Python
    // `_normal_dist_inv_cdf` (CPython may bind its C twin there: the text hash pins it instead).
    let mut method_env = env.clone();
    method_env.extend(exceptions.clone());
    for a in FROZEN {
        let dotted = format!("{name}.{a}");
        method_env.insert(
            format!("{ALIAS_PREFIX}{dotted}"),
            Binding::Unresolved(dotted),
        );
    }
    if let Some(inv) = top_level_function(stats, "_normal_dist_inv_cdf", env) {
        method_env.insert("_normal_dist_inv_cdf".into(), inv);
        method_env.insert(
            format!("{ALIAS_PREFIX}_normal_dist_inv_cdf"),
            Binding::Unresolved(String::new()),
        );
    }
    for (j, stmt) in class.body.iter().enumerate() {
        let ast::Stmt::FunctionDef(def) = stmt else {
            continue;
        };
        let attr = def.name.to_string();
        if attrs.contains_key(&attr) {
            continue;
        }
        let binding = if METHODS.contains(&attr.as_str()) && def.decorator_list.is_empty() {
            let tree = FunctionTree {
                module: stats.clone(),
                at: vec![at, j],
            };
            Binding::ClassMethod(Box::new(FunctionSource {
                path: stats.path.clone(),
                first_line: tree.first_line(),
                name: format!("NormalDist.{attr}"),
                env: Some(method_env.clone()),
                code: FunctionCode::Tree(tree),
                library: true,
            }))
        } else {
            Binding::Unresolved(format!(
                "`NormalDist.{attr}`: of a NormalDist, only `cdf`, `pdf`, `inv_cdf`, `mean`, `stdev` and `variance` can be read (issue 27)"
            ))
        };
        attrs.insert(attr, binding);
    }
    Binding::Namespace(attrs)
}

/// The top-level `def name` of `stats`, a helper reading the module's names (`env`), whatever
/// the module binds to that name later.
fn top_level_function(stats: &Arc<ParsedModule>, name: &str, env: &Env) -> Option<Binding> {
    let at = stats
        .body
        .iter()
        .position(|s| matches!(s, ast::Stmt::FunctionDef(d) if d.name.as_str() == name))?;
    let tree = FunctionTree {
        module: stats.clone(),
        at: vec![at],
    };
    Some(Binding::Function(Box::new(FunctionSource {
        path: stats.path.clone(),
        first_line: tree.first_line(),
        name: name.to_string(),
        env: Some(env.clone()),
        code: FunctionCode::Tree(tree),
        library: true,
    })))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::env::{AssumedBinding, Const};
    use crate::static_module::imports::{ForeignModule, Imports};
    use crate::static_module::{assumptions_of, compile_module_in, Outcome};

    /// The shape of CPython's `statistics.py` that matters here, in few lines.
    const STATISTICS: &str = "from math import erf, sqrt\n_SQRT2 = sqrt(2.0)\n\nclass StatisticsError(ValueError):\n    pass\n\ndef _normal_dist_inv_cdf(p, mu, sigma):\n    return mu + sigma * (p - 0.5)\n\ntry:\n    from _statistics import _normal_dist_inv_cdf\nexcept ImportError:\n    pass\n\nclass NormalDist:\n    def __init__(self, mu=0.0, sigma=1.0):\n        self._mu = float(mu)\n        self._sigma = float(sigma)\n\n    def cdf(self, x):\n        if not self._sigma:\n            raise StatisticsError('cdf() not defined when sigma is zero')\n        return 0.5 * (1.0 + erf((x - self._mu) / (self._sigma * _SQRT2)))\n\n    def inv_cdf(self, p):\n        if p <= 0.0 or p >= 1.0:\n            raise StatisticsError('p must be in the range 0.0 < p < 1.0')\n        return _normal_dist_inv_cdf(p, self._mu, self._sigma)\n\n    def zscore(self, x):\n        return (x - self._mu) / self._sigma\n\n    @property\n    def mean(self):\n        return self._mu\n";

    fn compiled(source: &str, with_statistics: bool) -> Vec<Outcome> {
        let mut modules = BTreeMap::new();
        if with_statistics {
            let stats = ForeignModule {
                source: STATISTICS.into(),
                path: "/lib/statistics.py".into(),
                sha256: None,
            };
            modules.insert("statistics".to_string(), stats);
        }
        let imports = Imports::new(String::new(), modules);
        let functions = compile_module_in(source, "m.py", None, false, &imports).expect("parses");
        functions.into_iter().map(|f| f.outcome).collect()
    }

    const MODULE: &str = "import statistics\nfrom statistics import NormalDist\nfrom array_vectorize import vectorize\n\nSPREAD = 15\nIQ = NormalDist(100, sigma=SPREAD)\nSAT = statistics.NormalDist(mu=500.0)\n\n@vectorize\ndef f(x):\n    return IQ.cdf(x) + SAT.mean\n\n@vectorize\ndef g(p):\n    return IQ.inv_cdf(p)\n\n@vectorize\ndef h(x):\n    return IQ.zscore(x)\n";

    #[test]
    fn a_normal_dist_of_numbers_the_text_gives_compiles_from_statistics_text() {
        let outcomes = compiled(MODULE, true);
        let f = assumptions_of(&outcomes[0]);
        let sha = crate::host::cache::sha256_hex(STATISTICS.as_bytes());
        assert_eq!(
            f["IQ.cdf"],
            AssumedBinding::StdlibMethod {
                class: "NormalDist".into(),
                name: "cdf".into(),
                module: "statistics".into(),
                module_text_sha256: sha,
            }
        );
        // `self._mu` is the importer's `IQ._mu`; `mu` was the int 100, `float(mu)` is frozen.
        assert_eq!(f["IQ._mu"], AssumedBinding::Const(Const::Float(100.0)));
        assert_eq!(f["IQ._sigma"], AssumedBinding::Const(Const::Float(15.0)));
        assert_eq!(f["SAT.mean"], AssumedBinding::Const(Const::Float(500.0)));
        assert!(matches!(&f["statistics:erf"], AssumedBinding::MathMember(m) if m == "erf"));
        let g = assumptions_of(&outcomes[1]);
        // The Python `_normal_dist_inv_cdf` is pinned by the text hash, not by the live name
        // (CPython's C twin); the exception class is checked in its module.
        assert!(
            !g.keys().any(|n| n.contains("_normal_dist_inv_cdf")),
            "{g:?}"
        );
        assert!(matches!(
            &g["statistics:StatisticsError"],
            AssumedBinding::ExceptionClass(_)
        ));
        // Another method is the decorator's (which refuses it with its position).
        assert!(
            matches!(&outcomes[2], Outcome::Deferred(_)),
            "{:?}",
            outcomes[2]
        );
    }

    #[test]
    fn other_shapes_are_left_to_the_decorator_with_the_reason() {
        let reason = |outcome: &Outcome| match outcome {
            Outcome::Deferred(names) => names.join("; "),
            other => panic!("not deferred: {other:?}"),
        };
        let without = compiled(MODULE, false);
        assert!(
            reason(&without[0]).contains("was not given"),
            "{}",
            reason(&without[0])
        );
        for shape in [
            "NormalDist(*P)",
            "NormalDist(100, f())",
            "NormalDist(100, -1)",
            "NormalDist(100, 15, 2)",
        ] {
            let text = MODULE.replace("NormalDist(100, sigma=SPREAD)", shape);
            let outcomes = compiled(&text, true);
            let why = reason(&outcomes[0]);
            assert!(
                why.starts_with("`IQ`, a `statistics.NormalDist` whose `mu` and `sigma`"),
                "{shape}: {why}"
            );
        }
        let rebound = MODULE.replace("SAT = ", "IQ = NormalDist(1, 2)\nSAT = ");
        assert_eq!(reason(&compiled(&rebound, true)[0]), "IQ");
    }
}
