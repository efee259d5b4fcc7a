//! The Python-level `if`: a branch on a scalar condition (loop indices and constants only) stays
//! an `if` in the generated code; its two blocks merge through [`IfOut`]s, with placeholders for
//! what a side that returned on every lane did not define.

use std::collections::BTreeSet;

use rustpython_parser::ast;

use crate::ir::{Block, CmpOp, Const, IfOut, Kind, Op, Shape, Value};
use crate::lower::{Done, Flow, Frame, Lowerer, Var};
use crate::Map as HashMap;

/// One side of a scalar `if`, lowered into its own block.
struct Side {
    block: Block,
    vars: HashMap<String, Var>,
    flow: Flow,
}

/// The two blocks of a scalar `if` and the values merged after it.
struct Branches {
    then: Side,
    other: Side,
    outs: Vec<IfOut>,
}

impl Lowerer<'_> {
    /// A branch on a scalar condition: a Python `if` whose two blocks merge through [`IfOut`]s.
    pub(in crate::lower) fn scalar_if(&mut self, frame: &mut Frame, cond: Value, i: &ast::StmtIf) {
        let saved_vars = frame.vars.clone();
        let saved_flow = frame.flow.clone();
        let saved_returns = saved_flow.returns.clone();
        // Values created from here on are defined inside the sides, raise sites recorded from
        // here on stand there.
        let (values_mark, sites_mark) = (self.f.values.len(), self.exceptions.site_count());
        let then = self.scalar_side(frame, &i.body, &saved_vars, &saved_flow);
        let other = self.scalar_side(frame, &i.orelse, &saved_vars, &saved_flow);
        let mut br = Branches {
            then,
            other,
            outs: vec![],
        };
        self.site_args_out(&mut br, values_mark, sites_mark);

        // Returns inside the branches, collapsed to values in each branch's block.
        // Only new returns change the flow (returns from before the `if` are on both sides).
        let returned = br.then.flow.returns.len() > saved_returns.len()
            || br.other.flow.returns.len() > saved_returns.len();
        if !returned {
            // No new return: nothing to collapse (a raise before the `if` stays a raise).
            frame.vars = self.merge_scalar_vars(&mut br);
            let dead = br.then.flow.ended() && br.other.flow.ended();
            self.push_if(cond, br.then.block, br.other.block, br.outs);
            frame.flow.dead |= dead;
            return;
        }
        let (then_done, then_ret) = self.collapse_in(&mut br.then.block, &br.then.flow);
        let (else_done, else_ret) = self.collapse_in(&mut br.other.block, &br.other.flow);
        let code = self.raise_code_out(&mut br, saved_returns.len());

        // Both sides returned (or raised) on every lane: so does the whole `if`, whichever side
        // runs. Nothing after it runs; the variables stay those from before it, so that an
        // enclosing `if` merging this branch finds each one defined as it was (an empty map
        // would make it stand a placeholder, an array, for a scalar such as a loop index).
        let all_done = br.then.flow.done == Done::Always && br.other.flow.done == Done::Always;
        let dead = !all_done && br.then.flow.ended() && br.other.flow.ended();
        frame.vars = if all_done {
            saved_vars
        } else {
            self.merge_scalar_vars(&mut br)
        };
        let done = (!all_done).then(|| self.if_out(&mut br, then_done, else_done));
        let ret = match (then_ret, else_ret) {
            (None, None) => None,
            (a, b) => Some(self.if_out_or_placeholder(&mut br, a, b)),
        };
        // After the `if` that defines `done`, `ret` and `code`: the returns may read them.
        self.push_if(cond, br.then.block, br.other.block, br.outs);
        let mut returns = saved_returns;
        if let Some(code) = code {
            // D11: the lanes that raised inside the `if` come before those that returned there
            // (`code` is 0 on a lane whose first exit there was a return).
            let zero = self.konst(Const::Int(0));
            let raised = self.emit(Op::Compare(CmpOp::Ne, code, zero));
            let entry = self.and_opt(frame.cond, Some(raised));
            returns.push((entry, code));
        }
        if let Some(r) = ret {
            returns = self.returns_after(&returns, frame.cond, done, r);
        }
        frame.flow = Flow {
            done: done.map_or(Done::Always, Done::Mask),
            returns,
            exits: saved_flow.exits,
            dead,
        };
    }

    /// D11: the raise code of the lanes whose first exit inside the `if` is a raise (0 on the
    /// others), merged from the two sides; None when neither side raises. Collapsing a side's
    /// returns drops its raise entries (`chain`): this is what keeps them, as one entry after
    /// the `if` whose value is a raise code.
    fn raise_code_out(&mut self, br: &mut Branches, before: usize) -> Option<Value> {
        let raises = |l: &Self, flow: &Flow| {
            flow.returns[before.min(flow.returns.len())..]
                .iter()
                .any(|(_, v)| l.exceptions.is_code(*v))
        };
        if !raises(self, &br.then.flow) && !raises(self, &br.other.flow) {
            return None;
        }
        let side_code = |l: &mut Self, side: &mut Side| {
            let returns = side.flow.returns.clone();
            l.in_block(&mut side.block, |l| {
                l.raise_chain(&returns, false)
                    .unwrap_or_else(|| l.konst(Const::Int(0)))
            })
        };
        let then_code = side_code(self, &mut br.then);
        let else_code = side_code(self, &mut br.other);
        let code = self.if_out(br, then_code, else_code);
        self.exceptions.add_code(code);
        Some(code)
    }

    /// D11: the values of the raise sites recorded inside the sides (from `sites_mark` on) that
    /// are defined there (from `values_mark` on), merged out of the `if` so that the message
    /// can be built after the body; the side that did not reach the site gives a placeholder
    /// (its lanes have another code). Every site is read after the body, those a `try` inside
    /// the side catches on every lane included.
    fn site_args_out(&mut self, br: &mut Branches, values_mark: usize, sites_mark: usize) {
        for (site, i, a) in self.exceptions.site_args_from(sites_mark) {
            if a.index() < values_mark {
                continue;
            }
            let in_then = self.defined_in(&br.then.block, a);
            let merged = if in_then {
                self.if_out_or_placeholder(br, Some(a), None)
            } else {
                self.if_out_or_placeholder(br, None, Some(a))
            };
            self.exceptions.set_site_arg(site, i, merged);
        }
    }

    /// Whether `v` is defined at the top level of `block` (by an instruction, a loop's phis or
    /// an `if`'s merged values).
    fn defined_in(&self, block: &Block, v: Value) -> bool {
        block.insts.iter().any(|inst| inst.defines(v))
    }

    /// Lowers one side of a scalar `if` into its own block, leaving `frame` as it was before.
    fn scalar_side(
        &mut self,
        frame: &mut Frame,
        stmts: &[ast::Stmt],
        saved_vars: &HashMap<String, Var>,
        saved_flow: &Flow,
    ) -> Side {
        let open = self.open_block(Block::default());
        self.body(frame, stmts);
        let vars = std::mem::replace(&mut frame.vars, saved_vars.clone());
        let flow = std::mem::replace(&mut frame.flow, saved_flow.clone());
        Side {
            block: self.close_block(open),
            vars,
            flow,
        }
    }

    /// The variables after a scalar `if`. Only one side runs; a side that returned on every
    /// lane leaves nothing observable after the `if`, so a placeholder stands in for what it
    /// did not define.
    fn merge_scalar_vars(&mut self, br: &mut Branches) -> HashMap<String, Var> {
        let mut vars = HashMap::default();
        let names: BTreeSet<String> = br
            .then
            .vars
            .keys()
            .chain(br.other.vars.keys())
            .cloned()
            .collect();
        for name in names {
            let t = br.then.vars.get(&name).copied();
            let e = br.other.vars.get(&name).copied();
            // A side whose every lane returned or left the iteration (its carried values kept
            // where it left) leaves nothing observable after the `if` either.
            let (then_returns, else_returns) = (br.then.flow.ended(), br.other.flow.ended());
            let merged = match (t, e) {
                (Some(Var::Def(a)), Some(Var::Def(b))) if a == b => Var::Def(a),
                (Some(Var::Def(a)), Some(Var::Def(b))) => Var::Def(self.if_out(br, a, b)),
                (Some(Var::Def(a)), _) if else_returns => {
                    Var::Def(self.if_out_or_placeholder(br, Some(a), None))
                }
                (_, Some(Var::Def(b))) if then_returns => {
                    Var::Def(self.if_out_or_placeholder(br, None, Some(b)))
                }
                // D20: the side that assigned it holds the value; its flag says where it is bound.
                (Some(Var::Def(a)), _) if self.tracks(&name) => {
                    Var::Def(self.if_out_or_placeholder(br, Some(a), None))
                }
                (_, Some(Var::Def(b))) if self.tracks(&name) => {
                    Var::Def(self.if_out_or_placeholder(br, None, Some(b)))
                }
                _ => Var::MaybeUndef,
            };
            if let Var::Def(v) = merged {
                if t != e {
                    self.f.values[v.index()].hint =
                        Some(crate::lower::loops::exits::hint_of(&name));
                }
            }
            vars.insert(name, merged);
        }
        vars
    }

    /// A merged value of a scalar `if` whose side without a value gets a placeholder.
    fn if_out_or_placeholder(
        &mut self,
        br: &mut Branches,
        a: Option<Value>,
        b: Option<Value>,
    ) -> Value {
        match (a, b) {
            (Some(a), Some(b)) => self.if_out(br, a, b),
            (Some(a), None) => {
                let b = self
                    .map_tuple(a, |l, p| l.placeholder_in(&mut br.other.block, p))
                    .unwrap_or_else(|| self.placeholder_in(&mut br.other.block, a));
                self.if_out(br, a, b)
            }
            (None, Some(b)) => {
                let a = self
                    .map_tuple(b, |l, p| l.placeholder_in(&mut br.then.block, p))
                    .unwrap_or_else(|| self.placeholder_in(&mut br.then.block, b));
                self.if_out(br, a, b)
            }
            (None, None) => unreachable!("a merge of two missing values"),
        }
    }

    /// A merged value of a scalar `if`; both sides are made arrays if either is one.
    fn if_out(&mut self, br: &mut Branches, a: Value, b: Value) -> Value {
        // Several results (D13): one merged value per position.
        if let Some(t) = self.merge_tuples(a, b, |l, p, q| l.if_out(br, p, q)) {
            return t;
        }
        // A uniform value merged with a number is read as a number on its side.
        let (a, b) = if (self.kind(a) == Kind::Object) != (self.kind(b) == Kind::Object) {
            (
                self.in_block(&mut br.then.block, |l| l.as_number(a)),
                self.in_block(&mut br.other.block, |l| l.as_number(b)),
            )
        } else {
            (a, b)
        };
        let array = self.shape(a) == Shape::Array || self.shape(b) == Shape::Array;
        let a = if array {
            self.as_array_in(&mut br.then.block, a)
        } else {
            a
        };
        let b = if array {
            self.as_array_in(&mut br.other.block, b)
        } else {
            b
        };
        let kind = if self.f.info(a).placeholder {
            self.kind(b)
        } else if self.f.info(b).placeholder {
            self.kind(a)
        } else {
            Kind::join(self.kind(a), self.kind(b))
        };
        let shape = if array { Shape::Array } else { Shape::Scalar };
        let dst = self.f.new_value(kind, shape, self.f.info(a).hint.clone());
        br.outs.push(IfOut {
            dst,
            then: a,
            other: b,
        });
        dst
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::lowered;

    #[test]
    fn a_branch_on_a_loop_index_stays_a_python_if() {
        let ir = lowered(
            "def f(x):\n    t = x\n    for i in range(3):\n        if i == 1:\n            t = t * 2.0\n    return t\n",
        );
        assert!(ir.contains("if %"), "{ir}");
        assert!(ir.contains("if_merge("), "{ir}");
    }

    #[test]
    fn a_raise_inside_a_uniform_if_leaves_it_as_a_merged_code() {
        // D11: the site's code is a value of the `if`'s block, merged out with 0 on the other
        // side; the message's `t`, defined in the block, is merged out too.
        let c = crate::pipeline::testing::compiled(
            "def f(x, mode: str):\n    if mode == 'strict':\n        t = x * 2.0\n        if t > 1.0:\n            raise ValueError(f'{t}')\n    return x\n",
        );
        assert!(c.source.contains("if mode == 'strict':"), "{}", c.source);
        assert!(c.source.contains("_vec_raises("), "{}", c.source);
        assert!(c.ir.raises.is_some());
    }

    #[test]
    fn a_uniform_if_returning_after_a_raise_compiles() {
        // D11: the raise before the `if` keeps its entry ahead of the `if`'s collapsed returns.
        let c = crate::pipeline::testing::compiled(
            "def f(x, mode: str):\n    if x > 3.5:\n        raise ValueError(f'x={x}')\n    if mode == 'a':\n        return x * 2.0\n    return x\n",
        );
        assert!(c.source.contains("_vec_raises("), "{}", c.source);
    }

    #[test]
    fn a_raise_inside_a_uniform_if_inside_a_try_is_rejected() {
        let env = crate::pipeline::testing::env(&[(
            "ValueError",
            crate::env::Binding::Builtin("ValueError".into()),
        )]);
        let e = crate::pipeline::testing::errors_with(
            "def f(x, mode: str):\n    try:\n        if mode == 'a':\n            raise ValueError('a')\n    except ValueError:\n        return 0.0\n    return x\n",
            &env,
        );
        assert!(e.iter().any(|m| m.contains("within a `try` body")), "{e:?}");
    }
}
