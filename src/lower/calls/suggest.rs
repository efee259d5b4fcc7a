//! Did-you-mean: the messages for `math` names the compiler cannot use, with the nearest real
//! name when the one written does not exist (a misspelling), so the user learns which it is.

/// Every public name of CPython's `math` module, 3.9 to 3.13: the ones the compiler supports
/// first, so that a tie between two suggestions goes to the one that compiles.
const MATH_NAMES: &[&str] = &[
    // Supported (functions with an Array API counterpart, and the constants).
    "sqrt",
    "exp",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "atan2",
    "hypot",
    "floor",
    "ceil",
    "trunc",
    "fabs",
    "copysign",
    "pow",
    "isnan",
    "isinf",
    "isfinite",
    "degrees",
    "radians",
    "pi",
    "e",
    "tau",
    "inf",
    "nan",
    // The rest of the module.
    "cbrt",
    "comb",
    "dist",
    "erf",
    "erfc",
    "exp2",
    "factorial",
    "fma",
    "fmod",
    "frexp",
    "fsum",
    "gamma",
    "gcd",
    "isclose",
    "isqrt",
    "lcm",
    "ldexp",
    "lgamma",
    "modf",
    "nextafter",
    "perm",
    "prod",
    "remainder",
    "sumprod",
    "ulp",
];

/// The message for a call `math.{name}(...)` that the compiler has no lowering for.
pub fn math_call(name: &str) -> String {
    if MATH_NAMES.contains(&name) {
        return format!("`math.{name}` has no Array API counterpart and cannot be vectorized");
    }
    format!("`math` has no function `{name}`{}", did_you_mean(name))
}

/// The message for `math.{attr}` read as a value that is no supported constant.
pub fn math_attribute(attr: &str) -> String {
    if MATH_NAMES.contains(&attr) {
        return format!("`math.{attr}` is not a supported constant");
    }
    format!("`math` has no attribute `{attr}`{}", did_you_mean(attr))
}

fn did_you_mean(name: &str) -> String {
    match closest(name, MATH_NAMES) {
        Some(near) => format!("; did you mean `math.{near}`?"),
        None => String::new(),
    }
}

/// The candidate most similar to `name` (difflib's ratio, 2 * common / total length, over the
/// longest common subsequence), if at least 0.6 similar as difflib's default cutoff; the first
/// of equals.
pub fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let mut best: Option<(f64, &'a str)> = None;
    for &candidate in candidates {
        let total = name.chars().count() + candidate.chars().count();
        if total == 0 {
            continue;
        }
        let ratio = 2.0 * common_subsequence(name, candidate) as f64 / total as f64;
        let better = match best {
            Some((b, _)) => ratio > b,
            None => true,
        };
        if ratio >= 0.6 && better {
            best = Some((ratio, candidate));
        }
    }
    best.map(|(_, c)| c)
}

fn common_subsequence(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row = vec![0usize; b.len() + 1];
    for ca in a.chars() {
        let mut diagonal = 0;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_function_gets_the_nearest_math_name() {
        assert_eq!(
            math_call("sqrtt"),
            "`math` has no function `sqrtt`; did you mean `math.sqrt`?"
        );
        assert_eq!(
            math_call("arctan2"),
            "`math` has no function `arctan2`; did you mean `math.atan2`?"
        );
        assert_eq!(math_call("qqqqqqqq"), "`math` has no function `qqqqqqqq`");
    }

    #[test]
    fn a_real_math_function_without_counterpart_says_so() {
        assert_eq!(
            math_call("erf"),
            "`math.erf` has no Array API counterpart and cannot be vectorized"
        );
    }

    #[test]
    fn a_misspelt_constant_gets_the_nearest_name() {
        assert_eq!(
            math_attribute("pii"),
            "`math` has no attribute `pii`; did you mean `math.pi`?"
        );
        assert_eq!(
            math_attribute("sqrt"),
            "`math.sqrt` is not a supported constant"
        );
    }

    #[test]
    fn the_most_similar_wins_and_ties_go_to_the_first() {
        assert_eq!(closest("cosx", &["cosh", "cos"]), Some("cos"));
        assert_eq!(closest("abc", &["abd", "abe"]), Some("abd"));
        assert_eq!(closest("xyz", &["abc"]), None);
        assert_eq!(closest("", &[""]), None);
    }
}
