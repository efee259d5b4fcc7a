//! Instances of out-of-line helpers (D7): a helper lowered on its own (`lower/calls/callee.rs`) is
//! optimized once per combination of its arguments' kinds, exactly as the compiled function is
//! for its parameters' kinds, and its result kind is what a call of it gives the caller's kind
//! inference. The float body and the exact body share the instances they both need.

use super::Passes;
use crate::codegen::CallTargets;
use crate::diagnostics::CompileError;
use crate::ir::{walk_insts, Function, Inst, Kind, Op, Shape};
use crate::lower::CalleeFn;
use crate::Map;

/// One helper optimized for its arguments' kinds.
struct Instance {
    /// Index of the helper in the lowered callees.
    callee: usize,
    /// The optimized body; its result is always an array, of its arguments' broadcast shape.
    func: Function,
}

/// Every instance a compile needed, memoized by (callee, argument kinds).
pub struct Instances<'c> {
    callees: &'c [CalleeFn],
    debug: bool,
    memo: Map<(usize, Vec<Kind>), usize>,
    /// In the order they were made.
    list: Vec<Instance>,
    /// Being made (a request for one of these would be recursion, which lowering refuses).
    busy: Vec<(usize, Vec<Kind>)>,
    error: Option<CompileError>,
}

impl<'c> Instances<'c> {
    /// No instances yet of `callees`; `debug` dumps each instance's IR after every pass.
    pub fn new(callees: &'c [CalleeFn], debug: bool) -> Self {
        Instances {
            callees,
            debug,
            memo: Map::default(),
            list: vec![],
            busy: vec![],
            error: None,
        }
    }

    /// The kind a call of `callee` with arguments of `kinds` gives.
    pub fn ret_kind(&mut self, callee: usize, kinds: &[Kind]) -> Kind {
        match self.instance(callee, kinds) {
            Some(i) => {
                let f = &self.list[i].func;
                f.info(f.ret[0]).kind
            }
            None => Kind::Unknown,
        }
    }

    /// The instance of `callee` for `kinds`, made on first request.
    pub fn instance(&mut self, callee: usize, kinds: &[Kind]) -> Option<usize> {
        let key = (callee, kinds.to_vec());
        if let Some(&i) = self.memo.get(&key) {
            return Some(i);
        }
        if self.busy.contains(&key) || self.error.is_some() {
            return None;
        }
        let mut func = self.callees.get(callee)?.func.clone();
        self.busy.push(key.clone());
        let mut observe = |_: &str, _: &Function| {};
        let mut passes = Passes {
            debug: self.debug,
            observe: &mut observe,
            prefix: "helper ",
        };
        // The result is broadcast to the arguments' shapes, as a call's value carries them
        // (analysis/coverage.rs).
        let mut calls = |c, k: &[Kind]| self.ret_kind(c, k);
        let done = if func.declared_params > 0 {
            passes.optimize(&mut func, kinds, &mut calls)
        } else {
            passes.simplify(&mut func, kinds, &mut calls)
        };
        self.busy.pop();
        if let Err(e) = done {
            self.error.get_or_insert(e);
            return None;
        }
        array_result(&mut func);
        self.list.push(Instance { callee, func });
        let i = self.list.len() - 1;
        self.memo.insert(key, i);
        Some(i)
    }

    /// The instance index of every call in `func` and in the instances it reaches, so codegen
    /// finds each one: (callee, argument kinds) -> index.
    pub fn resolve(&mut self, func: &Function) -> Result<(), CompileError> {
        let mut pending = vec![calls_of(func)];
        while let Some(calls) = pending.pop() {
            for (callee, kinds) in calls {
                let known = self.memo.contains_key(&(callee, kinds.clone()));
                match self.instance(callee, &kinds) {
                    Some(i) if !known => pending.push(calls_of(&self.list[i].func)),
                    Some(_) => {}
                    None => break,
                }
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// What codegen needs of the instances (after [`Self::resolve`]).
    pub fn into_targets(self) -> CallTargets {
        let callees = self.callees;
        CallTargets {
            functions: self
                .list
                .into_iter()
                .map(|i| (callees[i.callee].name.clone(), i.func))
                .collect(),
            by_kinds: self.memo,
        }
    }
}

/// The calls `func` makes, as (callee, argument kinds).
fn calls_of(func: &Function) -> Vec<(usize, Vec<Kind>)> {
    let mut out = vec![];
    walk_insts(&func.body, &mut |inst| {
        if let Inst::Let {
            op: Op::Call { callee, args },
            ..
        } = inst
        {
            out.push((*callee, args.iter().map(|a| func.info(*a).kind).collect()));
        }
    });
    out
}

/// A call's value is an array (`Op::Call`'s shape): a result that simplification left a Python
/// scalar (a constant on every path) is returned as a 0-d array.
fn array_result(func: &mut Function) {
    let ret = func.ret[0];
    if func.info(ret).shape == Shape::Array {
        return;
    }
    let kind = func.info(ret).kind;
    let dst = func.new_value(kind, Shape::Array, None);
    func.body.insts.push(Inst::Let {
        dst,
        op: Op::AsArray(ret),
    });
    func.ret = vec![dst];
}

#[cfg(test)]
mod tests {
    use crate::env::{Binding, FunctionCode, FunctionSource};
    use crate::pipeline::testing::{env, ir_after_with};
    use crate::pipeline::Options;

    /// `h0 .. h{depth}` (each calling the next twice, the last one returning `leaf`) bound in an
    /// environment.
    fn fan_out(depth: usize, leaf: &str) -> crate::env::Env {
        let bindings: Vec<(String, Binding)> = (0..=depth)
            .map(|i| {
                let body = if i == depth {
                    leaf.to_string()
                } else {
                    format!("h{}(x) + h{}(x)", i + 1, i + 1)
                };
                let fs = FunctionSource {
                    code: FunctionCode::Text(format!("def h{i}(x):\n    return {body}\n")),
                    path: "helpers.py".into(),
                    first_line: 1 + 3 * i,
                    name: format!("h{i}"),
                    env: None,
                    library: false,
                };
                (format!("h{i}"), Binding::Function(Box::new(fs)))
            })
            .collect();
        let refs: Vec<(&str, Binding)> = bindings
            .iter()
            .map(|(n, b)| (n.as_str(), b.clone()))
            .collect();
        env(&refs)
    }

    #[test]
    fn a_call_has_the_kind_its_instance_returns() {
        let env = fan_out(20, "(x > 1.0) == (x < 3.0)");
        let ir = ir_after_with(
            "def f(x):\n    return h0(x)\n",
            "kinds",
            &env,
            Options::default(),
        )
        .to_string();
        // bool + bool is an int.
        assert!(ir.contains(": int = call @"), "{ir}");
        let float = ir_after_with(
            "def f(x):\n    return h0(x) * 0.5\n",
            "float legalize",
            &env,
            Options::default(),
        )
        .to_string();
        assert!(
            float.contains(": int = call @") && float.contains(": float = mul"),
            "{float}"
        );
    }

    #[test]
    fn each_instance_is_made_once() {
        let env = fan_out(25, "x * 0.5 if x > 1.0 else x");
        let req = crate::pipeline::Request {
            input: crate::frontend::Input::Text {
                source: "def f(x):\n    return h0(x) - h0(x * 2.0)\n",
                path: "t.py",
                first_line: 1,
            },
            name: "f",
            env: &env,
            options: Options::default(),
        };
        let c = crate::pipeline::compile_observed(&req, &mut |_, _| {}).expect("compiles");
        let defs = c.source.matches("\ndef _vec_helper_").count();
        // Linear in the depth: one function per few levels and body, not 2**25 copies.
        assert!(defs > 0 && defs < 25, "{}", c.source);
    }
}
