//! The reader's own cases: every construct of the grammar read back as printed, and the errors,
//! each naming its line and column. The round trip over every fixture, snapshot and compiled
//! test program, after every pass, is tests/ir_text.rs (`ir` reads nothing above it).

use super::read;
use crate::ir::{Const, Inst, Kind, ParamMode, Shape};

fn error(text: &str) -> String {
    match read(text) {
        Err(e) => e.to_string(),
        Ok(f) => panic!("read:\n{f}"),
    }
}

const EVERY_CONSTRUCT: &str = "\
; ir-format: 1
fn rate.<locals>.tier(income, band: uniform, cap: optional; TABLE, helper) {
  %0: num = param 0
  %1: scalar obj = uniform Arg(1)()
  %2: scalar obj = uniform Attr(\"name \\\"x\\\"\\n\")(%1)
  %3: scalar obj = uniform Lit(Str(\"low\"))()
  %4: scalar bool = uniform Compare(IsNot)(%2, %3)
  %5: scalar obj = uniform Lit(None)()
  %6: scalar float = const -0.0
  %7: scalar float = const 1e-09
  %8: scalar int = const -170141183460469231731687303715884105728
  %9: scalar float = const ((1, 2.5), [True], {1: nan, 2: -inf})
  %10: float = math.numpy.floor(%0)
  %11: float = math.floor(%0)
  %12: float = math.round(%0, %8)
  %13: num = math.numpy.power(%0, %7)
  %14: bool = math.isclose(%0, %7, %6, %6)
  %15: num = call @0(%0, %10)
  %16: num = residue #4(%14, %0)
  %17: scalar int = cast.index %8
  %18: float = select %14, %10, %11
  %19: int = placeholder 0
  %20: scalar int = const 0
  for %21 in (1, 2.5) {
    %22: float = phi(%0, %23)
    %23: float = mul %22, %21
  }
  while any(%24) {
    %24: bool = phi(%14, %25)
    %25: bool = and %24, %14
  }
  if %4 {
    %26: scalar int = const 1
  } else {
  }
  %27: scalar int = if_merge(%26, %20)
  raise if %27 != 0, nan_on_raise
    1 (income = %0, rate = %10): ValueError(f\"bad {income} at {rate}\\n\\\\\")
      from: err
    2 (): AssertionError
  return (%22, %18)
}
";

#[test]
fn every_construct_reads_back() {
    let f = read(EVERY_CONSTRUCT).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.to_string(), EVERY_CONSTRUCT);
    assert_eq!(f.name, "rate.<locals>.tier");
    assert_eq!((f.params.len(), f.declared_params), (5, 3));
    assert_eq!(
        (f.mode(0), f.mode(1), f.mode(2)),
        (ParamMode::Number, ParamMode::Uniform, ParamMode::Optional)
    );
    let raises = f.raises.as_ref().expect("raises");
    assert!(raises.nan);
    assert_eq!(raises.sites[0].params, ["income", "rate"]);
    assert_eq!(
        raises.sites[0].expr,
        "ValueError(f\"bad {income} at {rate}\n\\\")"
    );
    assert_eq!(raises.sites[0].cause.as_deref(), Some("err"));
    assert_eq!(raises.sites[1].cause, None);
    assert!(f.tuple && f.ret.len() == 2);
    assert!(f.info(crate::ir::Value(19)).placeholder);
    // The loop over a tuple runs over its items; its index takes their kinds' join.
    let Inst::Loop {
        index,
        start,
        stop,
        items: Some(Const::Tuple(_)),
        ..
    } = &f.body.insts[21]
    else {
        panic!("{:?}", f.body.insts[21]);
    };
    assert_eq!((*start, *stop), (0, 2));
    assert_eq!(
        (f.info(*index).kind, f.info(*index).shape),
        (Kind::Float, Shape::Scalar)
    );
    // The `while` loop's index is fresh (not in the text).
    let Inst::Loop { index, .. } = &f.body.insts[22] else {
        panic!()
    };
    assert_eq!(index.index(), f.values.len() - 1);
}

/// D19, D23: the calls run element by element. A lambda's text is the call as written, parentheses
/// and quotes included (even unbalanced inside a string), up to the `)(` before its operands.
const SCALAR_CALLS: &str = "\
; ir-format: 1
fn quote(spot, strike; _vec_scalar_quote, _vec_site_0)
  %0: num = param 0
  %1: num = param 1
  %2: scalar bool = const True
  %3: num = residue #2(%2, %0, %1)
  %4: bool = scalar_raised %3
  %5: num = call_site #3(%4, %0)
  %6: bool = scalar_raised %5
  %7: num = call_site (lambda spot, _vec_a0: ND.cdf(spot, \")(\\n\", k=_vec_a0))(%2, %0, %5)
  %8: num = call_site (lambda : ND.mean())(%2)
  %9: bool = scalar_raised %8
  return %7
}
";

#[test]
fn scalar_calls_read_back() {
    let text = SCALAR_CALLS.replacen("_vec_site_0)\n", "_vec_site_0) {\n", 1);
    let f = read(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.to_string(), text);
    let op = |i: usize| match &f.body.insts[i] {
        Inst::Let { op, .. } => op.clone(),
        other => panic!("{other:?}"),
    };
    use crate::ir::{Op, ScalarFn, Value};
    assert!(
        matches!(op(3), Op::ScalarCall { callee: ScalarFn::Residue(2), ref args } if args.len() == 3)
    );
    assert_eq!(op(4), Op::ScalarRaised(Value(3)));
    assert!(matches!(
        op(5),
        Op::ScalarCall {
            callee: ScalarFn::Callable(3),
            ..
        }
    ));
    let Op::ScalarCall {
        callee: ScalarFn::Lambda(params, body),
        args,
    } = op(7)
    else {
        panic!("{:?}", op(7))
    };
    assert_eq!(params, ["spot", "_vec_a0"]);
    assert_eq!(body, "ND.cdf(spot, \")(\n\", k=_vec_a0)");
    assert_eq!(args, [Value(2), Value(0), Value(5)]);
    assert!(matches!(op(8), Op::ScalarCall { callee: ScalarFn::Lambda(p, _), .. } if p.is_empty()));
    assert_eq!(f.info(Value(4)).kind, Kind::Bool);
    let line = "  %7: num = call_site (lambda spot: ND.cdf(%2, %0)\n";
    let broken = text.replace(
        &text[text.find("  %7").unwrap()..text.find("  %8").unwrap()],
        line,
    );
    assert_eq!(
        error(&broken),
        "10:43: expected `)` closing the lambda before its operands, found `(%2,`"
    );
}

#[test]
fn the_version_is_checked() {
    let text = EVERY_CONSTRUCT.replacen("ir-format: 1", "ir-format: 2", 1);
    assert_eq!(
        error(&text),
        "1:15: this text is in ir-format 2; this reader reads ir-format 1, found the end of the line"
    );
    assert_eq!(
        error("fn f(x) {\n}\n"),
        "1:1: expected the header `; ir-format: 1`, found `fn`"
    );
}

#[test]
fn errors_name_the_line_and_column() {
    let head = "; ir-format: 1\nfn f(x) {\n  %0: num = param 0\n";
    let cases = [
        ("  %1: float = frobnicate %0\n", "4:15: expected an operation, found `frobnicate`"),
        ("  %1: real = neg %0\n", "4:7: expected a kind (bool, int, float, num, obj), found `real`"),
        ("  %0: num = neg %0\n", "4:3: %0 is defined twice (first at 3:3)"),
        ("  %1: num = add %0 %0\n", "4:20: expected `,`, found `%0`"),
        ("  %1: num = math.sine(%0)\n", "4:13: no such math function, found `math.sine`"),
        ("  %1: num = neg %7\n", "4:17: %7 is read but never defined"),
        ("  %1: num = phi(%0, %0)\n", "4:13: a phi stands only after its loop's head, an if_merge after its `if`, found `phi`"),
        ("  %1: scalar obj = uniform Attr(\"a\\q\")()\n", "4:35: expected an escape: \\\\, \\\", \\n, \\r, \\t or \\u{hex}, found `\\q\")()`"),
        ("  %1: scalar float = const (1.0)\n", "4:28: a tuple of one item is written `(x,)`, found `(1.0)`"),
    ];
    for (line, expected) in cases {
        let text = format!("{head}{line}  return %0\n}}\n");
        assert_eq!(error(&text), expected, "{line}");
    }
    assert_eq!(
        error(&format!(
            "{head}  for %1 in range(0, 2, 1) {{\n  return %0\n}}\n"
        )),
        "5:3: expected `}`, found `return`"
    );
    assert_eq!(
        error(&format!("{head}  return %0\n")),
        "5:1: the text ends where `}` was expected"
    );
    assert_eq!(
        error(&format!(
            "{head}  raise if %0 != 0\n    2 (): E\n  return %0\n}}\n"
        )),
        "5:5: expected raise site 1, found `2`"
    );
}
