//! The operations of the text form (`op` in [`super`]'s grammar): a name, its payload, its
//! operands.

use super::cursor::Cursor;
use super::{Reader, R};
use crate::ir::math::math_fn_by_ir_name;
use crate::ir::op::{BinOp, CastOp, CmpOp, LogicOp, Op, ScalarFn, UnOp};
use crate::ir::types::Value;
use crate::ir::uniform::{ElementTypes, ObjCmp, ObjLit, UniformOp};

impl Reader<'_> {
    /// The operation after `=`.
    pub(super) fn op(&mut self, c: &mut Cursor) -> R<Op> {
        let head = c.word();
        let one = |r: &mut Self, c: &mut Cursor| r.read_value(c);
        let two = |r: &mut Self, c: &mut Cursor| -> R<(Value, Value)> {
            let a = r.read_value(c)?;
            c.expect(",")?;
            Ok((a, r.read_value(c)?))
        };
        if let Some(o) = unary(head) {
            return Ok(Op::Unary(o, one(self, c)?));
        }
        if let Some(make) = binary(head) {
            let (a, b) = two(self, c)?;
            return Ok(make(a, b));
        }
        if let Some(name) = head.strip_prefix("math.") {
            let f = math_fn_by_ir_name(name)
                .ok_or_else(|| c.error_before(head, "no such math function"))?;
            c.expect("(")?;
            return Ok(Op::Math(f, self.values_until(c, ")")?));
        }
        if let Some(name) = head.strip_prefix("cast.") {
            let o = cast(name).ok_or_else(|| c.error_before(head, "no such cast"))?;
            return Ok(Op::Cast(o, one(self, c)?));
        }
        Ok(match head {
            "param" => Op::Param(usize::try_from(c.int()?).map_err(|_| c.error("bad index"))?),
            "const" => Op::Const(c.konst()?),
            "placeholder" => Op::Placeholder(c.konst()?),
            "select" => {
                let cond = one(self, c)?;
                c.expect(",")?;
                let (a, b) = two(self, c)?;
                Op::Select(cond, a, b)
            }
            "index" => {
                let t = one(self, c)?;
                c.expect("[")?;
                let i = one(self, c)?;
                c.expect("]")?;
                Op::Index(t, i)
            }
            "call" => {
                c.expect("@")?;
                let callee = usize::try_from(c.int()?).map_err(|_| c.error("bad callee"))?;
                c.expect("(")?;
                let args = self.values_until(c, ")")?;
                Op::Call { callee, args }
            }
            "residue" | "call_site" => {
                let callee = scalar_fn(head, c)?;
                c.expect("(")?;
                let args = self.values_until(c, ")")?;
                Op::ScalarCall { callee, args }
            }
            "scalar_raised" => Op::ScalarRaised(one(self, c)?),
            "broadcast" => Op::Broadcast(one(self, c)?),
            "asarray" => Op::AsArray(one(self, c)?),
            "uniform" => {
                let u = uniform(c)?;
                c.expect("(")?;
                Op::Uniform(u, self.values_until(c, ")")?)
            }
            "phi" | "if_merge" => {
                return Err(c.error_before(
                    head,
                    "a phi stands only after its loop's head, an if_merge after its `if`",
                ))
            }
            _ => return Err(c.error_before(head, "expected an operation")),
        })
    }
}

/// What a `residue` or `call_site` calls, before its operands (D19, D23): `#k`, hidden
/// parameter `k`; or, for a call site, `(lambda PARAMS: TEXT)`, the call as written, whose text
/// runs to the `)` before the operands' `(` (the line's last: operands hold none).
fn scalar_fn(head: &str, c: &mut Cursor) -> R<ScalarFn> {
    if head == "residue" || !c.at("(") {
        c.expect("#")?;
        let i = usize::try_from(c.int()?).map_err(|_| c.error("bad callee"))?;
        return Ok(if head == "residue" {
            ScalarFn::Residue(i)
        } else {
            ScalarFn::Callable(i)
        });
    }
    c.expect("(")?;
    if !c.eat_word("lambda") {
        return Err(c.error("expected `lambda`"));
    }
    let mut params = vec![];
    while !c.at(":") {
        params.push(c.name()?.to_string());
        if !c.eat(",") {
            break;
        }
    }
    c.expect(":")?;
    let body = c.text_to_last("(")?;
    let Some(body) = body.strip_suffix(')') else {
        return Err(c.error("expected `)` closing the lambda before its operands"));
    };
    Ok(ScalarFn::Lambda(params, body.to_string()))
}

fn unary(name: &str) -> Option<UnOp> {
    Some(match name {
        "neg" => UnOp::Neg,
        "pos" => UnOp::Pos,
        "not" => UnOp::Not,
        "abs" => UnOp::Abs,
        "invert" => UnOp::Invert,
        _ => return None,
    })
}

/// The binary operation `name` (arithmetic, comparison, logic) as a constructor.
fn binary(name: &str) -> Option<Box<dyn Fn(Value, Value) -> Op>> {
    let arith =
        |o: BinOp| -> Box<dyn Fn(Value, Value) -> Op> { Box::new(move |a, b| Op::Binary(o, a, b)) };
    let cmp = |o: CmpOp| -> Box<dyn Fn(Value, Value) -> Op> {
        Box::new(move |a, b| Op::Compare(o, a, b))
    };
    let logic = |o: LogicOp| -> Box<dyn Fn(Value, Value) -> Op> {
        Box::new(move |a, b| Op::Logic(o, a, b))
    };
    Some(match name {
        "add" => arith(BinOp::Add),
        "sub" => arith(BinOp::Sub),
        "mul" => arith(BinOp::Mul),
        "div" => arith(BinOp::Div),
        "floordiv" => arith(BinOp::FloorDiv),
        "mod" => arith(BinOp::Mod),
        "pow" => arith(BinOp::Pow),
        "bitand" => arith(BinOp::BitAnd),
        "bitor" => arith(BinOp::BitOr),
        "bitxor" => arith(BinOp::BitXor),
        "lshift" => arith(BinOp::LShift),
        "rshift" => arith(BinOp::RShift),
        "lt" => cmp(CmpOp::Lt),
        "le" => cmp(CmpOp::Le),
        "gt" => cmp(CmpOp::Gt),
        "ge" => cmp(CmpOp::Ge),
        "eq" => cmp(CmpOp::Eq),
        "ne" => cmp(CmpOp::Ne),
        "and" => logic(LogicOp::And),
        "or" => logic(LogicOp::Or),
        _ => return None,
    })
}

fn cast(name: &str) -> Option<CastOp> {
    Some(match name {
        "float" => CastOp::Float,
        "int" => CastOp::Int,
        "bool" => CastOp::Bool,
        "round" => CastOp::Round,
        "index" => CastOp::Index,
        _ => return None,
    })
}

/// A uniform operation's name and payload (`Attr("rate")`), before its operands.
fn uniform(c: &mut Cursor) -> R<UniformOp> {
    let name = c.word();
    let index = |c: &mut Cursor| -> R<usize> {
        c.expect("(")?;
        let i = usize::try_from(c.int()?).map_err(|_| c.error("bad index"))?;
        c.expect(")")?;
        Ok(i)
    };
    let string = |c: &mut Cursor| -> R<String> {
        c.expect("(")?;
        let s = c.string()?;
        c.expect(")")?;
        Ok(s)
    };
    Ok(match name {
        "Arg" => UniformOp::Arg(index(c)?),
        "Global" => UniformOp::Global(index(c)?),
        "Builtin" => UniformOp::Builtin(string(c)?),
        "Lit" => {
            c.expect("(")?;
            let lit = if c.eat_word("None") {
                ObjLit::None
            } else {
                c.expect("Str")?;
                ObjLit::Str(string(c)?)
            };
            c.expect(")")?;
            UniformOp::Lit(lit)
        }
        "Tuple" => UniformOp::Tuple,
        "Attr" => UniformOp::Attr(string(c)?),
        "Item" => UniformOp::Item,
        "Get" => UniformOp::Get,
        "StrMethod" => UniformOp::StrMethod(string(c)?),
        "Compare" => {
            c.expect("(")?;
            let word = c.word();
            let o = [
                ObjCmp::Eq,
                ObjCmp::Ne,
                ObjCmp::Is,
                ObjCmp::IsNot,
                ObjCmp::In,
            ]
            .into_iter()
            .find(|o| crate::ir::print::obj_cmp_name(*o) == word)
            .ok_or_else(|| c.error_before(word, "expected Eq, Ne, Is, IsNot or In"))?;
            c.expect(")")?;
            UniformOp::Compare(o)
        }
        "IsInstance" => UniformOp::IsInstance,
        "TypeOf" => UniformOp::TypeOf,
        "ElementIs" => {
            c.expect("(")?;
            let mut types = ElementTypes::NONE;
            if !c.eat_word("none") {
                loop {
                    let word = c.word();
                    let t = ElementTypes::of_name(word)
                        .ok_or_else(|| c.error_before(word, "expected bool, int or float"))?;
                    types = types.union(t);
                    if !c.eat("|") {
                        break;
                    }
                }
            }
            c.expect(")")?;
            UniformOp::ElementIs(types)
        }
        "Truth" => UniformOp::Truth,
        "Number" => UniformOp::Number,
        "NumberOrFalse" => UniformOp::NumberOrFalse,
        "Len" => UniformOp::Len,
        "Sequence" => UniformOp::Sequence,
        "Reduce" => UniformOp::Reduce(string(c)?),
        "Unpack" => UniformOp::Unpack(index(c)?),
        _ => return Err(c.error_before(name, "expected a uniform operation")),
    })
}
