//! Python constants as the IR holds them, and their kinds.

use super::types::Kind;

/// A Python constant that can be frozen into generated code.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    Bool(bool),
    /// Python ints are unbounded; we keep what fits in i128 and refuse the rest.
    Int(i128),
    Float(f64),
    Tuple(Vec<Const>),
    /// A list of numbers, frozen like a tuple (D15); only its IndexError's wording differs.
    List(Vec<Const>),
    /// A dict of numbers (D15): its entries in insertion order, keys distinct under `==`.
    Dict(Vec<(Const, Const)>),
}

impl Const {
    /// Identity for hashing and CSE: floats by bit pattern, so `0.0` and `-0.0` stay apart.
    pub fn key(&self) -> String {
        match self {
            Const::Bool(b) => format!("b{b}"),
            Const::Int(i) => format!("i{i}"),
            Const::Float(f) => format!("f{:016x}", f.to_bits()),
            Const::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Const::key).collect();
                format!("t({})", inner.join(","))
            }
            Const::List(items) => {
                let inner: Vec<String> = items.iter().map(Const::key).collect();
                format!("l({})", inner.join(","))
            }
            Const::Dict(entries) => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}:{}", k.key(), v.key()))
                    .collect();
                format!("d({})", inner.join(","))
            }
        }
    }

    /// The items of a tuple or list.
    pub fn items(&self) -> Option<&[Const]> {
        match self {
            Const::Tuple(items) | Const::List(items) => Some(items),
            _ => None,
        }
    }

    /// What a subscript can read: the items of a tuple or list, the values of a dict.
    pub fn readable(&self) -> Option<Vec<Const>> {
        match self {
            Const::Tuple(items) | Const::List(items) => Some(items.clone()),
            Const::Dict(entries) => Some(entries.iter().map(|(_, v)| v.clone()).collect()),
            _ => None,
        }
    }

    /// Python's `repr` of the value.
    pub fn python_repr(&self) -> String {
        match self {
            Const::Bool(true) => "True".into(),
            Const::Bool(false) => "False".into(),
            Const::Int(i) => i.to_string(),
            Const::Float(f) => float_repr(*f),
            Const::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Const::python_repr).collect();
                if inner.len() == 1 {
                    format!("({},)", inner[0])
                } else {
                    format!("({})", inner.join(", "))
                }
            }
            Const::List(items) => {
                let inner: Vec<String> = items.iter().map(Const::python_repr).collect();
                format!("[{}]", inner.join(", "))
            }
            Const::Dict(entries) => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.python_repr(), v.python_repr()))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
        }
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed notation for exponents
/// in [-4, 16) and scientific (`1e-09`, `1.5e+16`) otherwise.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e-7".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    let n = digits.len() as i32;
    let body = if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                format!("{}{}.0", digits, "0".repeat((int_len - n) as usize))
            } else {
                format!(
                    "{}.{}",
                    &digits[..int_len as usize],
                    &digits[int_len as usize..]
                )
            }
        } else {
            format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
        }
    } else {
        let frac = if n > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{}{}e{}{:02}", &digits[..1], frac, esign, exp.abs())
    };
    format!("{sign}{body}")
}

/// The kind of a constant (a table's: the join of what a subscript reads).
pub fn const_kind(c: &Const) -> Kind {
    match c {
        Const::Bool(_) => Kind::Bool,
        Const::Int(_) => Kind::Int,
        Const::Float(_) => Kind::Float,
        Const::Tuple(_) | Const::List(_) | Const::Dict(_) => c
            .readable()
            .unwrap_or_default()
            .iter()
            .map(const_kind)
            .reduce(Kind::join)
            .unwrap_or(Kind::Unknown),
    }
}

impl Kind {
    /// The zero a placeholder of this kind holds (never observed on a live lane).
    pub fn zero(self) -> Const {
        match self {
            Kind::Float => Const::Float(0.0),
            Kind::Int => Const::Int(0),
            Kind::Bool | Kind::Unknown | Kind::Object => Const::Bool(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1e-9, "1e-09"),
            (0.1, "0.1"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9999999999999998.0, "9999999999999998.0"),
            (std::f64::consts::PI, "3.141592653589793"),
        ];
        for (value, expected) in cases {
            assert_eq!(float_repr(value), expected, "{value:e}");
        }
    }

    #[test]
    fn const_key_separates_signed_zero() {
        assert_ne!(Const::Float(0.0).key(), Const::Float(-0.0).key());
    }
}
