//! The generated functions of out-of-line helpers (D7): one `_vec_helper_<name>_<n>` per
//! helper instance (its arguments' kinds) and per set of its int arguments that may be wide
//! (`kinds::wide_ints`), defined in the same generated module after the body that first calls
//! it: the entry's text holds those the float body reaches, the exact body's text the others.
//!
//! ```python
//! def _vec_helper_h1_0(xp, x):
//!     h2 = _vec_helper_h2_0(xp, x)
//!     return h2 + h2
//! ```
//!
//! A helper's function takes the namespace first, then its array arguments as the caller holds
//! them (a uint64-lattice int included), and returns its value as computed: only the entry's
//! body gives a returned value one dtype (`_vec_result`).

use std::cell::RefCell;
use std::collections::BTreeSet;

use super::runtime::HELPERS;
use super::{unique, Function, Gen, Kind, Value, PYTHON_NAMES};
use crate::codegen::pyast::{call, name, Expr, Stmt};
use crate::ir::ParamMode;
use crate::Map;

/// The out-of-line helpers' instances a compile made, for codegen.
#[derive(Debug, Clone, Default)]
pub struct CallTargets {
    /// Each instance: the helper's name and its optimized body (whose result is an array).
    pub functions: Vec<(String, Function)>,
    /// (callee, argument kinds) -> index in `functions`, for every call the bodies make.
    pub by_kinds: Map<(usize, Vec<Kind>), usize>,
}

/// The generated functions of one module, named as the bodies first call them.
pub(super) struct Emitted<'a> {
    targets: &'a CallTargets,
    /// Names the module's functions must not take: every parameter and variable of the source.
    avoid: BTreeSet<String>,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    /// (instance, which arguments may be wide ints) -> function name.
    names: Map<(usize, Vec<bool>), String>,
    /// Named, not yet defined.
    queue: Vec<(usize, Vec<bool>, String)>,
    taken: BTreeSet<String>,
}

impl<'a> Emitted<'a> {
    /// Nothing named yet; `bodies` are the entry's IRs, whose names the functions avoid.
    pub(super) fn new(targets: &'a CallTargets, bodies: &[&Function]) -> Self {
        let mut avoid = BTreeSet::new();
        let all = bodies
            .iter()
            .copied()
            .chain(targets.functions.iter().map(|(_, f)| f));
        for f in all {
            avoid.extend(f.params.iter().cloned());
            avoid.extend(f.values.iter().filter_map(|v| v.hint.clone()));
        }
        Emitted {
            targets,
            avoid,
            state: RefCell::default(),
        }
    }

    /// The name of the function of `callee`'s instance for `kinds`, with `wide` arguments.
    fn name_for(&self, callee: usize, kinds: &[Kind], wide: Vec<bool>) -> String {
        let Some(&inst) = self.targets.by_kinds.get(&(callee, kinds.to_vec())) else {
            // The pipeline resolves every call before codegen.
            debug_assert!(false, "no instance of callee {callee} for {kinds:?}");
            return format!("_vec_helper_missing_{callee}");
        };
        let mut st = self.state.borrow_mut();
        if let Some(n) = st.names.get(&(inst, wide.clone())) {
            return n.clone();
        }
        let helper: String = self.targets.functions[inst]
            .0
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut taken = st.taken.clone();
        taken.extend(self.avoid.iter().cloned());
        let n = (0..)
            .map(|i| format!("_vec_helper_{helper}_{i}"))
            .find(|n| !taken.contains(n))
            .unwrap_or_default();
        st.taken.insert(n.clone());
        st.names.insert((inst, wide.clone()), n.clone());
        st.queue.push((inst, wide, n.clone()));
        n
    }

    /// The definitions of every function named and not yet defined, and of those they call.
    pub(super) fn drain(&self) -> Vec<Stmt> {
        let mut out = vec![];
        loop {
            let next = {
                let mut st = self.state.borrow_mut();
                if st.queue.is_empty() {
                    None
                } else {
                    Some(st.queue.remove(0))
                }
            };
            let Some((inst, wide, fname)) = next else {
                return out;
            };
            out.push(self.define(inst, &wide, fname));
        }
    }

    /// `def <fname>(xp, params): body` for instance `inst`.
    fn define(&self, inst: usize, wide: &[bool], fname: String) -> Stmt {
        let f = &self.targets.functions[inst].1;
        let reserved: BTreeSet<String> = f
            .params
            .iter()
            .cloned()
            .chain(HELPERS.iter().map(|h| h.name.to_string()))
            .chain(PYTHON_NAMES.iter().map(|s| s.to_string()))
            .chain(self.state.borrow().taken.iter().cloned())
            .collect();
        let xp = unique("xp", &reserved);
        // A uniform argument (D14) is passed as it is: no array to broadcast the result with.
        let arrays: Vec<String> = (0..f.params.len())
            .filter(|i| f.mode(*i) != ParamMode::Uniform)
            .map(|i| f.params[i].clone())
            .collect();
        let mut g = Gen::new(f, &xp, &reserved, &arrays, &f.params, (wide, Some(self)));
        g.returns_raw = true;
        let mut params = vec![xp];
        params.extend(f.params.iter().cloned());
        Stmt::Def {
            name: fname,
            params,
            posonly: 0,
            kwonly: vec![],
            body: g.function_body(),
        }
    }
}

impl Gen<'_> {
    /// `_vec_helper_<name>_<n>(xp, args)`: a call of helper `callee`'s generated function.
    pub(super) fn call_helper_fn(&mut self, callee: usize, args: &[Value]) -> Expr {
        let kinds: Vec<Kind> = args.iter().map(|a| self.kind(*a)).collect();
        let wide: Vec<bool> = args.iter().map(|a| self.wide[a.index()]).collect();
        let fname = match self.calls {
            Some(calls) => calls.name_for(callee, &kinds, wide),
            None => {
                debug_assert!(false, "a call without call targets");
                format!("_vec_helper_missing_{callee}")
            }
        };
        let mut all = vec![name(&self.xp)];
        all.extend(args.iter().map(|a| self.value(*a)));
        call(name(&fname), all)
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    /// `h0 .. h{depth}`, each calling the next twice (past the inlining budget at this depth),
    /// the last one being `leaf`, then the marked `f` returning `body`.
    fn fan_out(depth: usize, leaf: &str, body: &str) -> String {
        let mut src = String::from("# helpers\n");
        for i in 0..depth {
            src.push_str(&format!(
                "def h{i}(x):\n    return h{}(x) + h{}(x)\n\n",
                i + 1,
                i + 1
            ));
        }
        src.push_str(&format!("def h{depth}(x):\n    {leaf}\n\n"));
        src.push_str(&format!("@vectorize\ndef f(x):\n    {body}\n"));
        src
    }

    fn defined(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix("def _vec_helper_"))
            .map(|l| l.split('(').next().unwrap_or_default().to_string())
            .collect()
    }

    #[test]
    fn each_function_is_defined_once_after_the_body_that_first_calls_it() {
        let c = compiled(&fan_out(
            20,
            "return x * 0.5 if x > 1.0 else x",
            "return h0(x)",
        ));
        let g = &c.generated;
        let (fast, exact) = (defined(&g.fast_source), defined(&g.exact_source));
        assert!(!fast.is_empty() && !exact.is_empty(), "{}", c.source);
        let mut all = [fast.clone(), exact].concat();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "{}", c.source);
        // Every function called is defined in the module, and the float body's in its text.
        for called in c.source.split("_vec_helper_").skip(1) {
            let name = called.split('(').next().unwrap_or_default();
            assert!(
                all.iter().any(|d| d == name),
                "{name} undefined:\n{}",
                c.source
            );
        }
        // The float body's calls are defined in its own text.
        let fast_body = g.fast_source.split("\n\n\n").next().unwrap_or_default();
        for called in fast_body.split("_vec_helper_").skip(1) {
            let name = called.split('(').next().unwrap_or_default();
            assert!(fast.iter().any(|d| d == name), "{}", g.fast_source);
        }
        for name in &fast {
            assert!(
                g.fast_source
                    .contains(&format!("def _vec_helper_{name}(xp, x):\n")),
                "{}",
                g.fast_source
            );
        }
    }

    #[test]
    fn the_lists_of_helpers_are_the_functions_each_text_defines() {
        let c = compiled(&fan_out(
            20,
            "return x * 0.5 if x > 1.0 else x",
            "return h0(x)",
        ));
        let g = &c.generated;
        let short = |names: &[String]| -> Vec<String> {
            names
                .iter()
                .map(|n| n.trim_start_matches("_vec_helper_").to_string())
                .collect()
        };
        assert!(!g.helpers.is_empty() && !g.exact_helpers.is_empty());
        assert_eq!(short(&g.helpers), defined(&g.fast_source), "{}", c.source);
        assert_eq!(
            short(&g.exact_helpers),
            defined(&g.exact_source),
            "{}",
            c.source
        );
        let inlined = compiled("def f(x):\n    return x * 2.0\n");
        assert!(inlined.generated.helpers.is_empty() && inlined.generated.exact_helpers.is_empty());
    }

    #[test]
    fn an_int_body_calling_an_out_of_line_helper_is_not_lanewise() {
        // Issue 30: the helper's body is not the int body's statements; blocking keeps it whole.
        let c = compiled(&fan_out(20, "return x * 3 if x > 1 else x", "return h0(x)"));
        let g = &c.generated;
        assert!(g.exact_source.contains("_vec_int_args"), "{}", c.source);
        assert!(!g.exact_helpers.is_empty() || !g.helpers.is_empty());
        assert!(!g.int_lanewise, "{}", c.source);
    }

    #[test]
    fn the_argument_kinds_pick_the_function() {
        // In the float body `int(x)` is an int: h0 then has an instance per argument kind.
        let c = compiled(&fan_out(
            20,
            "return x * 3 if x > 1 else x",
            "return h0(x) + h0(int(x))",
        ));
        let fast = defined(&c.generated.fast_source);
        let helper = |d: &String| d.rsplit_once('_').map(|(h, _)| h.to_string());
        let twice = fast
            .iter()
            .any(|d| fast.iter().filter(|e| helper(e) == helper(d)).count() == 2);
        assert!(twice, "{}", c.generated.fast_source);
    }

    #[test]
    fn only_the_entry_gives_a_wide_int_one_dtype() {
        let c = compiled(&fan_out(
            20,
            "return x // 3 if x > 5 else x * 2 - 1",
            "return h0(x)",
        ));
        let exact = &c.generated.exact_source;
        let (body, helpers) = exact
            .split_once("\n\n\ndef _vec_helper_")
            .expect("helpers after the exact body");
        assert!(body.contains("_vec_result(xp, "), "{exact}");
        assert!(!helpers.contains("_vec_result("), "{exact}");
    }
}
