//! The runtime helper contract, defined once: every global of generated code that the runtime
//! (`hook_py/array_vectorize/runtime/`) provides, with the operation keys it accepts. Codegen
//! calls helpers only through these entries; `_core.RUNTIME_HELPERS` exports the table
//! (src/python.rs), the runtime's `registry.py` binds each name to its function, and the Python
//! tests check both sides against it.

use crate::ir::{BinOp, CastOp, CmpOp, UnOp};

/// One runtime helper: how generated code calls it and what it computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Helper {
    /// The stable key the Python side refers to it by.
    pub key: &'static str,
    /// The global name generated code calls.
    pub name: &'static str,
    /// Its parameters as generated code passes them.
    pub params: &'static str,
    /// The values its `op` parameter takes (empty: it has none).
    pub ops: &'static [&'static str],
    /// What it returns.
    pub meaning: &'static str,
}

/// The float prologue of every entry.
pub const FLOAT_ARGS: Helper = Helper {
    key: "float_args",
    name: "_vec_float_args",
    params: "*args",
    ops: &[],
    meaning: "(xp, *arrays) when every argument is a float64 array or a Python float (scalars \
              become 0-d float64 arrays), else None",
};

/// The prologue of every exact body (and of the element loop).
pub const EXACT_ARGS: Helper = Helper {
    key: "exact_args",
    name: "_vec_exact_args",
    params: "*args",
    ops: &[],
    meaning: "(xp, *arrays): every argument as an array of bool, int64, uint64 or float64",
};

/// The prologue of the int body, in the exact body's function.
pub const INT_ARGS: Helper = Helper {
    key: "int_args",
    name: "_vec_int_args",
    params: "*args",
    ops: &[],
    meaning: "(xp, *arrays) when every argument is an array of a signed int dtype or of \
              uint8/16/32, or a Python int within int64 (all as int64; on NumPy a Python int \
              or 0-d array as shape (1,), and None when no argument has a dimension), else None",
};

/// The prologue of the mixed body (issue 30), in the exact body's function after the int body.
pub const MIXED_ARGS: Helper = Helper {
    key: "mixed_args",
    name: "_vec_mixed_args",
    params: "kinds, *args",
    ops: &[],
    meaning: "(xp, *arrays) when each argument is of its kind in the string `kinds`: `i` as \
              `_vec_int_args` takes it (an array of a signed int dtype or of uint8/16/32, or a \
              Python int within int64, as int64), `f` a float64 array or a Python float; on \
              NumPy a scalar or 0-d array as shape (1,), and None when no argument has a \
              dimension; else None",
};

/// Python's `a op b` per lane.
pub const BINARY: Helper = Helper {
    key: "binary",
    name: "_vec_binary",
    params: "xp, op, a, b",
    ops: &[
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge", "eq",
        "ne", "and", "or", "xor", "lshift", "rshift", "np_pow",
    ],
    meaning: "Python's `a op b` per lane (bitwise ops on ints and bools: TypeError for a float; \
              a negative shift count gives 0, docs/semantics.md; `np_pow` is NumPy's `power` \
              on floats, `sqrt` for an exponent of 0.5, and `**` on two ints, D16)",
};

/// Python's `op(a)` per lane.
pub const UNARY: Helper = Helper {
    key: "unary",
    name: "_vec_unary",
    params: "xp, op, a",
    ops: &[
        "neg", "pos", "abs", "not", "invert", "float", "int", "bool", "round", "floor", "ceil",
        "trunc", "np_floor", "np_ceil", "np_trunc", "np_round", "index", "lift",
    ],
    meaning: "Python's `op(a)` per lane (`bool` is `a != 0`, `not` is `a == 0`; `invert` is `~` \
              on ints and bools; `floor`, `ceil` and `trunc` are math's, returning ints; the \
              `np_` ones are NumPy's, a float for a float and an int unchanged, D16; `index` is \
              `operator.index`: TypeError for a float; `lift` is a Python number as a 0-d array \
              of its own kind, item 17's OverflowError beyond 64 bits)",
};

/// `xp.where` across kinds.
pub const SELECT: Helper = Helper {
    key: "select",
    name: "_vec_select",
    params: "xp, cond, a, b",
    ops: &[],
    meaning: "`xp.where(cond, a, b)` with the operands promoted to one dtype \
              (bool < int64 < float64, uint64 by the lattice)",
};

/// A value at the broadcast shape of the parameters.
pub const BROADCAST: Helper = Helper {
    key: "broadcast",
    name: "_vec_broadcast",
    params: "xp, value, *params",
    ops: &[],
    meaning: "`value` as an array of the broadcast shape of `value` and `params`",
};

/// The element loop of `fallback=True` (D7).
pub const ELEMENTWISE: Helper = Helper {
    key: "elementwise",
    name: "_vec_elementwise",
    params: "xp, fn, *args",
    ops: &[],
    meaning: "an element loop calling `fn` on each lane's Python values",
};

/// The scalar residue of a recursion (D19), on the lanes that reach it.
pub const RESIDUE: Helper = Helper {
    key: "residue",
    name: "_vec_residue",
    params: "xp, fn, lanes, *args",
    ops: &[],
    meaning: "D19: `(values, raised)`: the scalar original `fn` called on each lane of the bool \
              `lanes` in C order with that lane's Python values, its results as one array \
              (`False` on the other lanes), and the lanes where it raised (D11)",
};

/// A call that cannot be vectorized, run element by element (D23, `fallback="calls"`).
pub const CALL_SITE: Helper = Helper {
    key: "call_site",
    name: "_vec_call_site",
    params: "xp, fn, lanes, *args",
    ops: &[],
    meaning: "D23: `(values, raised)` of `fn` on the lanes of `lanes`, as `_vec_residue`",
};

/// The exception of an element-wise call on the first lane that raised there (D11, D19, D23).
pub const RERUN: Helper = Helper {
    key: "rerun",
    name: crate::ir::RERUN_HELPER,
    params: "fn, *values",
    ops: &[],
    meaning: "the exception `fn(*values)` raises (a RuntimeError when it returns: the callee is \
              not pure)",
};

/// The returned value of an int array that may hold uint64-lattice lanes.
pub const RESULT: Helper = Helper {
    key: "result",
    name: "_vec_result",
    params: "xp, value",
    ops: &[],
    meaning: "the returned array in one dtype: uint64 when no lane is negative, else int64, each \
              lane equal to its value modulo 2**64 (docs/semantics.md item 13)",
};

/// The test of a data-dependent loop (D12).
pub const ANY: Helper = Helper {
    key: "any",
    name: "_vec_any",
    params: "xp, mask",
    ops: &[],
    meaning: "whether any lane of the bool array `mask` is true, as a Python bool (a compute on \
              lazy namespaces; a VectorizationError under tracing, where it cannot be known)",
};

/// A masked `while` loop made a step function (D12, src/codegen/loop_fn.rs).
pub const WHILE: Helper = Helper {
    key: "while",
    name: "_vec_while",
    params: "xp, step, mask, *carried, lane_wise=False",
    ops: &[],
    meaning: "the loop's carried variables after `carried = step(*carried)` ran while any lane of \
              `carried[mask]` is true; under tracing (JAX) the same as `jax.lax.while_loop`, \
              its active lanes packed into smaller buffers when `lane_wise`",
};

/// A conditional expression of a masked loop's step whose test reads a carried value (D12,
/// src/codegen/loop_fn.rs).
pub const IFEXP: Helper = Helper {
    key: "ifexp",
    name: "_vec_ifexp",
    params: "xp, test, then, other",
    ops: &[],
    meaning: "`then() if test else other()`; where `test` is traced (a counter carried by \
              `jax.lax.while_loop`), `xp.where(test, then(), other())`",
};

/// `xp.sin(x)` and `xp.cos(x)` of one statement taken in one call (src/codegen/sincos.rs).
pub const SINCOS: Helper = Helper {
    key: "sincos",
    name: "_vec_sincos",
    params: "xp, x",
    ops: &[],
    meaning: "`(xp.sin(x), xp.cos(x))`; on a large NumPy float64 array from one pass of the C \
              library's `sincos` where that gives NumPy's bits",
};

/// The state of a packed `while` loop (src/codegen/pack.rs), made before it runs.
pub const LANES: Helper = Helper {
    key: "lanes",
    name: "_vec_lanes",
    params: "xp, carried, *values",
    ops: &[],
    meaning: "a packing state for the loop about to run, or None when its arrays are never \
              packed (not all NumPy arrays of bool, int or float, or none of 4096 lanes or \
              more); `values` are its `carried` variables, then the locals it reads",
};

/// At the top of each iteration of a packed `while` loop.
pub const PACK: Helper = Helper {
    key: "pack",
    name: "_vec_pack",
    params: "xp, lanes, mask, *values",
    ops: &[],
    meaning: "`values` unchanged, or, once at most half of the current lanes are active in \
              `mask`, every array among them reduced to the active lanes (the carried values \
              of the others kept in `lanes`)",
};

/// After a packed `while` loop.
pub const UNPACK: Helper = Helper {
    key: "unpack",
    name: "_vec_unpack",
    params: "xp, lanes, *values",
    ops: &[],
    meaning: "`values` as the loop would have left them unpacked: each carried array with every \
              lane, each local its own array again",
};

/// A constant table indexed per lane (D15).
pub const TAKE: Helper = Helper {
    key: "take",
    name: "_vec_take",
    params: "xp, table, index, what",
    ops: &[],
    meaning: "`table[index]` per lane with Python's negative indices; an index outside \
              [-len, len) raises CPython's IndexError (`what` is `tuple` or `list`; None where \
              the compiler proved every index within [-len, len): nothing is checked), a \
              float index its TypeError",
};

/// A constant dict of numbers looked up per lane (D15).
pub const LOOKUP: Helper = Helper {
    key: "lookup",
    name: "_vec_lookup",
    params: "xp, keys, values, key",
    ops: &[],
    meaning: "`dict(zip(keys, values))[key]` per lane (or of a Python scalar): a key matches by \
              CPython's exact `==` across bool, int and float; a missing key raises CPython's \
              `KeyError(key)` for the first such lane in C order",
};

/// The check of a uniform argument (D14).
pub const UNIFORM: Helper = Helper {
    key: "uniform",
    name: "_vec_uniform",
    params: "value, name",
    ops: &[],
    meaning: "`value` unchanged; TypeError naming parameter `name` when it is an array, since \
              the parameter is read once per call as a Python object (D14)",
};

/// A sequence given per call, indexed per lane (D14, D15).
pub const TAKE_PARAM: Helper = Helper {
    key: "take_param",
    name: "_vec_take_param",
    params: "xp, table, index",
    ops: &[],
    meaning: "`table[index]` per lane for a tuple or list of numbers given per call, converted \
              once per call to one kind as a constant table's items are (bool, int, or float \
              when any item is a float), then `_vec_take` with `what` its type's name; \
              TypeError for anything but a tuple or list of numbers",
};

/// A value given per call that a loop runs over by index (D14).
pub const SEQUENCE_GIVEN: Helper = Helper {
    key: "sequence_given",
    name: "_vec_sequence_given",
    params: "value",
    ops: &[],
    meaning: "`value` unchanged when it is a tuple or list; TypeError otherwise (a loop over a \
              value given per call runs over its items by index, which a dict or set has not)",
};

/// A value given per call unpacked into several names (D14).
pub const UNPACK_GIVEN: Helper = Helper {
    key: "unpack_given",
    name: "_vec_unpack_given",
    params: "value, n",
    ops: &[],
    meaning: "the `n` items of `value` as a tuple, unpacked by CPython's own unpacking (its \
              TypeError or ValueError when `value` is not an iterable of `n` items)",
};

/// The Python type of a parameter's elements (D22).
pub const ELEMENT_TYPE: Helper = Helper {
    key: "element_type",
    name: "_vec_element_type",
    params: "xp, value",
    ops: &[],
    meaning: "the Python type CPython's element loop sees in every element of `value` (a \
              parameter: an array of bool, int64, uint64 or float64, a LatticeInt, or a Python \
              scalar): `bool`, `int` or `float`, from its dtype (D22)",
};

/// The prologue of the element loop of `fallback=True` (D7, D14).
pub const LOOP_ARGS: Helper = Helper {
    key: "loop_args",
    name: "_vec_loop_args",
    params: "*args",
    ops: &[],
    meaning: "(xp, *values): numbers and arrays as `_vec_exact_args` converts them, any other \
              argument (None, a string, a dict, an Enum member: D14) unchanged",
};
/// A `math` function the Array API lacks (D17), written in `xp` operations by
/// `runtime/special.py`; `key` is its `math` name (`round_digits`: `round(x, n)`).
const fn special(
    key: &'static str,
    name: &'static str,
    params: &'static str,
    meaning: &'static str,
) -> Helper {
    Helper {
        key,
        name,
        params,
        ops: &[],
        meaning,
    }
}

/// `math.erf` per lane (D17).
pub const ERF: Helper = special(
    "erf",
    "_vec_erf",
    "xp, x",
    "`math.erf(x)` per lane, within 2 ulps",
);
/// `math.erfc` per lane (D17).
pub const ERFC: Helper = special(
    "erfc",
    "_vec_erfc",
    "xp, x",
    "`math.erfc(x)` per lane, within 4 ulps",
);
/// `math.gamma` per lane (D17).
pub const GAMMA: Helper = special(
    "gamma",
    "_vec_gamma",
    "xp, x",
    "`math.gamma(x)` per lane, within 10 ulps; +-inf or nan where CPython raises (D3)",
);
/// `math.lgamma` per lane (D17).
pub const LGAMMA: Helper = special(
    "lgamma",
    "_vec_lgamma",
    "xp, x",
    "`math.lgamma(x)` per lane, within 8 ulps of max(|result|, 1); inf where CPython raises (D3)",
);
/// `math.fmod` per lane (D17).
pub const FMOD: Helper = special(
    "fmod",
    "_vec_fmod",
    "xp, x, y",
    "`math.fmod(x, y)` per lane, exact; nan where CPython raises (D3)",
);
/// `math.remainder` per lane (D17).
pub const REMAINDER: Helper = special(
    "remainder",
    "_vec_remainder",
    "xp, x, y",
    "`math.remainder(x, y)` per lane, exact; nan where CPython raises (D3)",
);
/// `math.isclose` per lane (D17).
pub const ISCLOSE: Helper = special(
    "isclose",
    "_vec_isclose",
    "xp, a, b, rel_tol, abs_tol",
    "`math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)` per lane (bool)",
);
/// `math.fsum` of a fixed sequence per lane (D17).
pub const FSUM: Helper = special(
    "fsum",
    "_vec_fsum",
    "xp, *values",
    "`math.fsum((v1, v2, ...))` per lane, exact",
);
/// `round(x, n)` for float `x` and a constant int `n` (D17).
pub const ROUND_DIGITS: Helper = special(
    "round_digits",
    "_vec_round_digits",
    "xp, x, ndigits",
    "`round(x, ndigits)` per lane for float x and a constant int ndigits, exact; +-inf where \
     CPython raises OverflowError (D3)",
);

/// A Python scalar lifted to a float64 0-d value in the float body.
pub const F64: Helper = Helper {
    key: "f64",
    name: "_vec_f64",
    params: "xp, value",
    ops: &[],
    meaning: "Python scalar `value` as a float64 0-d value (float body only): a float64 scalar on \
              NumPy (it computes as a 0-d array does, at a tenth of `xp.asarray`'s cost), a 0-d \
              array elsewhere",
};

/// A Python bool lifted to a bool 0-d array in the float body.
pub const BOOL0D: Helper = Helper {
    key: "bool0d",
    name: "_vec_bool0d",
    params: "xp, value",
    ops: &[],
    meaning: "Python bool `value` as a bool 0-d array, `xp.asarray(value, dtype=xp.bool)` (float \
              body only): on NumPy the same array from `numpy.asarray` directly, at a tenth of \
              array-api-compat's wrapper's cost",
};

/// A polynomial in Horner form over one float array in the float body (src/codegen/horner.rs).
pub const HORNER: Helper = Helper {
    key: "horner",
    name: "_vec_horner",
    params: "xp, x, coefficients, ops, times_x",
    ops: &[],
    meaning: "`acc = x * c0`, then per further coefficient `acc = acc * x` (from the second on) \
              and `acc + c` (`ops` `+`) or `c - acc` (`-`), then `acc * x` when `times_x` \
              (float body only): one pass of the core's kernel on C-contiguous float64 NumPy \
              arrays, the same operations bit for bit; the array operations elsewhere and when \
              a lane is not finite (NumPy's warnings)",
};

/// `a if a op b else b` on float arrays in the float body.
pub const PICK: Helper = Helper {
    key: "pick",
    name: "_vec_pick",
    params: "xp, op, a, b",
    ops: &["gt", "lt"],
    meaning: "`a if a op b else b` per lane for float operands (float body only): \
              `xp.maximum`/`xp.minimum` when `a` is a NumPy scalar other than NaN and zero, or \
              on large NumPy arrays when the result holds no NaN and no zero; else a comparison \
              and `where`",
};

/// `min(max(x, lo), hi)` in the float body, bounds arrays or float constants.
pub const CLIP: Helper = Helper {
    key: "clip",
    name: "_vec_clip",
    params: "xp, x, lo, hi",
    ops: &[],
    meaning: "`min(max(x, lo), hi)` per lane for float operands (float body only): with constant \
              bounds `xp.clip`, NumPy's `clip` ufunc on NumPy arrays where exact; with array \
              bounds one NumPy `clip` pass when its result holds no NaN and no zero, else two \
              `_vec_pick`s",
};

/// Whether a loop-carried array of the float body may be updated in place (`inplace`).
pub const OWNED: Helper = Helper {
    key: "owned",
    name: "_vec_owned",
    params: "xp, value, *arrays",
    ops: &[],
    meaning: "whether `value`, just computed by the generated code, may be updated in place from \
              now on: a writeable float64 NumPy array that owns its memory, of the broadcast \
              shape of `arrays` (no later operand can be larger); False on every other namespace",
};

/// The check after the body of a function that can raise (D11).
pub const RAISES: Helper = Helper {
    key: "raises",
    name: "_vec_raises",
    params: "xp, code, *sites",
    ops: &[],
    meaning: "raises the exception of the first lane in C order whose `code` is nonzero: site \
              `code - 1` of `sites`, each `(make_exception, values)` or, for `raise ... from cause`, \
              `(make_exception, values, make_cause)`, called on that lane's values",
};

/// The check after the body of a function whose every lane reaches the same raise, if any
/// (D11 with a raise code computed from uniform values, D14): run in a Python `if`.
pub const RAISE_UNIFORM: Helper = Helper {
    key: "raise_uniform",
    name: "_vec_raise_uniform",
    params: "xp, code, arrays, *sites",
    ops: &[],
    meaning: "raises the exception of site `code - 1` of `sites` (as `_vec_raises`), built from \
              the first element's values, with its note, unless the broadcast shape of the \
              tuple `arrays` has no element; called where `code`, a Python int, is nonzero",
};

/// `nan_on_raise=True` (D11): the result as float64 with NaN on the lanes that raised.
pub const RAISED_TO_NAN: Helper = Helper {
    key: "raised_to_nan",
    name: "_vec_raised_to_nan",
    params: "xp, code, value",
    ops: &[],
    meaning: "nan_on_raise=True (D11): `value` as float64 with NaN on the lanes whose `code` is \
              nonzero, instead of raising",
};

/// The message of the exception a lane raises reading a name it never assigned (D20).
pub const UNBOUND: Helper = Helper {
    key: "unbound",
    name: "_vec_unbound",
    params: "name, free",
    ops: &[],
    meaning: "D20: the message of CPython's UnboundLocalError for reading the local `name` \
              unbound (with `free`, of the NameError for a variable of an enclosing function), \
              worded as the running interpreter words it; a raise site's argument",
};

/// What an int or mixed body may call and still be evaluated in blocks (issue 30,
/// runtime/blocked.py): its prologue, the table gather (whose IndexError names its lane through
/// `lane_position`), the `while` mask's test, the broadcast of a result to the arguments' shape
/// and `range` of a `for` loop; each computes every lane from that lane alone. So does
/// `_vec_select` of two Python floats (float64 on every lane whichever side a lane takes:
/// codegen/assemble.rs checks its operands). Any other call (`_vec_binary` with its uint64
/// lattice of whole-array decisions, docs/semantics.md item 13; another helper; an out-of-line
/// helper, D7) keeps a call whole.
pub const LANEWISE_INT_CALLS: &[&str] = &[
    INT_ARGS.name,
    MIXED_ARGS.name,
    TAKE.name,
    ANY.name,
    WHILE.name,
    IFEXP.name,
    BROADCAST.name,
    "range",
];

/// The exception of a float converted to an int beyond int64 (docs/semantics.md item 7).
pub const INT_OVERFLOW: Helper = Helper {
    key: "int_overflow",
    name: "_vec_int_overflow",
    params: "function, x",
    ops: &[],
    meaning: "item 7: the OverflowError of `function` (`int`, `round`, `math.floor`, \
              `math.ceil`, `math.trunc`) of the float `x` from 2**63 up or below -2**63: \
              CPython's own for ±inf, else one saying an int array cannot hold it; a raise \
              site's expression",
};

/// Every runtime helper, in the order of ARCHITECTURE.md's table.
pub const HELPERS: &[Helper] = &[
    FLOAT_ARGS,
    EXACT_ARGS,
    INT_ARGS,
    MIXED_ARGS,
    BINARY,
    UNARY,
    SELECT,
    BROADCAST,
    ELEMENTWISE,
    RESIDUE,
    CALL_SITE,
    RERUN,
    RESULT,
    TAKE,
    LOOKUP,
    UNIFORM,
    TAKE_PARAM,
    SEQUENCE_GIVEN,
    UNPACK_GIVEN,
    ELEMENT_TYPE,
    LOOP_ARGS,
    ERF,
    ERFC,
    GAMMA,
    LGAMMA,
    FMOD,
    REMAINDER,
    ISCLOSE,
    FSUM,
    ROUND_DIGITS,
    PICK,
    CLIP,
    HORNER,
    F64,
    BOOL0D,
    ANY,
    WHILE,
    IFEXP,
    LANES,
    PACK,
    UNPACK,
    SINCOS,
    OWNED,
    RAISES,
    RAISE_UNIFORM,
    RAISED_TO_NAN,
    UNBOUND,
    INT_OVERFLOW,
];

/// The helper with key `key` (a `math` function's runtime form, [`crate::ir::MathFn::runtime`]).
pub fn by_key(key: &str) -> Option<&'static Helper> {
    HELPERS.iter().find(|h| h.key == key)
}

/// `_vec_binary`'s key for an arithmetic operator.
pub fn binary_key(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "truediv",
        BinOp::FloorDiv => "floordiv",
        BinOp::Mod => "mod",
        BinOp::Pow => "pow",
        BinOp::BitAnd => "and",
        BinOp::BitOr => "or",
        BinOp::BitXor => "xor",
        BinOp::LShift => "lshift",
        BinOp::RShift => "rshift",
    }
}

/// `_vec_binary`'s key for a comparison.
pub fn compare_key(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "lt",
        CmpOp::Le => "le",
        CmpOp::Gt => "gt",
        CmpOp::Ge => "ge",
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
    }
}

/// `_vec_unary`'s key for a unary operator.
pub fn unary_key(op: UnOp) -> &'static str {
    match op {
        UnOp::Neg => "neg",
        UnOp::Pos => "pos",
        UnOp::Abs => "abs",
        UnOp::Not => "not",
        UnOp::Invert => "invert",
    }
}

/// `_vec_unary`'s key for a conversion (also the Python builtin that converts a scalar).
pub fn cast_key(op: CastOp) -> &'static str {
    match op {
        CastOp::Float => "float",
        CastOp::Int => "int",
        CastOp::Bool => "bool",
        CastOp::Round => "round",
        CastOp::Index => "index",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_keys_are_unique_and_names_are_private_globals() {
        for (i, h) in HELPERS.iter().enumerate() {
            assert!(h.name.starts_with("_vec_"), "{}", h.name);
            for other in &HELPERS[i + 1..] {
                assert_ne!(h.key, other.key);
                assert_ne!(h.name, other.name);
            }
        }
    }

    #[test]
    fn every_key_codegen_passes_is_an_operation_of_its_helper() {
        use BinOp::*;
        for op in [
            Add, Sub, Mul, Div, FloorDiv, Mod, Pow, BitAnd, BitOr, BitXor, LShift, RShift,
        ] {
            assert!(BINARY.ops.contains(&binary_key(op)), "{op:?}");
        }
        for op in [
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
            CmpOp::Eq,
            CmpOp::Ne,
        ] {
            assert!(BINARY.ops.contains(&compare_key(op)), "{op:?}");
        }
        for op in [UnOp::Neg, UnOp::Pos, UnOp::Abs, UnOp::Not, UnOp::Invert] {
            assert!(UNARY.ops.contains(&unary_key(op)), "{op:?}");
        }
        for op in [
            CastOp::Float,
            CastOp::Int,
            CastOp::Bool,
            CastOp::Round,
            CastOp::Index,
        ] {
            assert!(UNARY.ops.contains(&cast_key(op)), "{op:?}");
        }
        // The rounding functions of `int(math.floor(x))` (peephole::rounding_to_int).
        for op in crate::codegen::peephole::ROUNDING {
            assert!(UNARY.ops.contains(op), "{op}");
        }
        // Every `math` function computed by a runtime helper names one.
        for m in crate::ir::MATH_FUNCTIONS {
            if let Some(key) = m.runtime {
                assert!(by_key(key).is_some(), "{key}");
            }
        }
    }
}
