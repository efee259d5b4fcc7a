//! The runtime's one native kernel (issue 30): a polynomial in Horner form over one float64
//! array, in one pass, for `_vec_horner` (hook_py/array_vectorize/runtime/horner.py). NumPy
//! evaluates `c0 + x * (c1 + x * (c2 + ...))` as two array passes per coefficient, each
//! streaming its operands through the caches; here each lane's accumulator stays in a register
//! from the first product to the last sum (seawater_density: 22 of its 29 array operations).
//!
//! Results are bit for bit NumPy's passes (and so CPython's): every lane takes the same IEEE
//! operations on the same operands in the same order. Rust never contracts `a * b + c` into a
//! fused multiply-add, nor reassociates, whatever the target features: the AVX variants only
//! widen the vectors the loop runs on. `acc * x` for CPython's `x * acc` and `acc + c` for
//! `c + acc` are the same IEEE results (commutative); `c - acc` is computed as
//! `acc * -1.0 + c`, the same result by IEEE's definition of subtraction (`a - b` is
//! `a + (-b)`), and `acc * -1.0` leaves a NaN as `c - acc` leaves it (unchanged).

/// Lanes computed together: four AVX-512 or eight AVX2 registers of accumulators, enough
/// independent chains to hide the latency of the multiplications and additions.
const LANES: usize = 32;

/// A polynomial's program: `acc = x * c[0]`, then `acc = acc + c[1]` (or `c[1] - acc`), then
/// for each further coefficient `acc = acc * x` and `acc = acc + c[k]` (or `c[k] - acc`), then
/// `acc = acc * x` once more when `times_x`.
pub struct Horner<'a> {
    pub coefficients: &'a [f64],
    /// Per coefficient from `c[1]` on: `-1.0` for `c[k] - acc`, `1.0` for `acc + c[k]`; None
    /// when every step adds.
    pub signs: Option<&'a [f64]>,
    pub times_x: bool,
}

/// Whether a lane holds an infinity or a NaN (exponent bits all set).
#[inline(always)]
fn non_finite(v: f64) -> bool {
    const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
    v.to_bits() & EXPONENT == EXPONENT
}

/// `out[i] = p(x[i])` for every lane; true when some lane of `out` is an infinity or a NaN (the
/// caller then recomputes with NumPy, whose floating-point warnings a lane that overflowed or
/// became NaN must give: a Horner accumulator that is not finite stays so to the end).
/// `out` and `x` have the same length and `p` at least two coefficients.
#[inline(always)]
fn evaluate<const SIGNED: bool>(out: &mut [f64], x: &[f64], p: &Horner) -> bool {
    let c = p.coefficients;
    let signs = p.signs.unwrap_or(&[]);
    let step = |acc: f64, k: usize| {
        if SIGNED {
            acc * signs[k - 1] + c[k]
        } else {
            acc + c[k]
        }
    };
    let mut bad = false;
    let mut outs = out.chunks_exact_mut(LANES);
    let mut xs = x.chunks_exact(LANES);
    for (o, xv) in (&mut outs).zip(&mut xs) {
        let xv: &[f64; LANES] = xv.try_into().expect("chunks of LANES");
        let mut acc = [0.0f64; LANES];
        for (a, &xj) in acc.iter_mut().zip(xv) {
            *a = step(xj * c[0], 1);
        }
        for k in 2..c.len() {
            for (a, &xj) in acc.iter_mut().zip(xv) {
                *a = step(*a * xj, k);
            }
        }
        if p.times_x {
            for (a, &xj) in acc.iter_mut().zip(xv) {
                *a *= xj;
            }
        }
        bad |= acc.iter().fold(false, |any, &a| any | non_finite(a));
        o.copy_from_slice(&acc);
    }
    for (o, &xi) in outs.into_remainder().iter_mut().zip(xs.remainder()) {
        let mut acc = step(xi * c[0], 1);
        for k in 2..c.len() {
            acc = step(acc * xi, k);
        }
        if p.times_x {
            acc *= xi;
        }
        bad |= non_finite(acc);
        *o = acc;
    }
    bad
}

fn evaluate_any(out: &mut [f64], x: &[f64], p: &Horner) -> bool {
    if p.signs.is_some() {
        evaluate::<true>(out, x, p)
    } else {
        evaluate::<false>(out, x, p)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn evaluate_avx512(out: &mut [f64], x: &[f64], p: &Horner) -> bool {
    evaluate_any(out, x, p)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn evaluate_avx2(out: &mut [f64], x: &[f64], p: &Horner) -> bool {
    evaluate_any(out, x, p)
}

/// `out[i] = p(x[i])` on the widest vectors this CPU has; true when some lane of `out` is not
/// finite. Panics (a bug of the caller's) when the lengths differ or `p` has fewer than two
/// coefficients or a sign per coefficient after the first is missing.
pub fn horner(out: &mut [f64], x: &[f64], p: &Horner) -> bool {
    assert!(out.len() == x.len() && p.coefficients.len() >= 2);
    if let Some(s) = p.signs {
        assert_eq!(s.len(), p.coefficients.len() - 1);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F.
            return unsafe { evaluate_avx512(out, x, p) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { evaluate_avx2(out, x, p) };
        }
    }
    evaluate_any(out, x, p)
}

#[cfg(test)]
mod tests {
    use super::{horner, Horner};

    /// The passes NumPy makes (and CPython's operations), one lane at a time.
    fn reference(x: f64, c: &[f64], signs: Option<&[f64]>, times_x: bool) -> f64 {
        let mut acc = x * c[0];
        for k in 1..c.len() {
            if k > 1 {
                acc = x * acc;
            }
            acc = match signs {
                Some(s) if s[k - 1] < 0.0 => c[k] - acc,
                _ => c[k] + acc,
            };
        }
        if times_x {
            acc = x * acc;
        }
        acc
    }

    #[test]
    fn every_lane_is_the_separate_operations_bit_for_bit() {
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            5e-324,
            -5e-324,
            2.2250738585072014e-308,
            1e308,
            -1e308,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            0.1,
            1e-160,
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..1000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            xs.push(f64::from_bits(state >> 2) - 1.0e3 * (state % 7) as f64);
            xs.push((state % 100_000) as f64 / 1000.0 - 40.0);
        }
        let c = [
            6.536332e-9,
            -1.120083e-6,
            1.001685e-4,
            -9.095290e-3,
            6.793952e-2,
            999.842594,
        ];
        let signs = [1.0, -1.0, 1.0, -1.0, -1.0];
        for (signed, times_x) in [(false, false), (true, false), (true, true), (false, true)] {
            let s = signed.then_some(&signs[..]);
            for n in [0, 1, 31, 32, 33, xs.len()] {
                let x = &xs[..n];
                let mut out = vec![0.0; n];
                let p = Horner {
                    coefficients: &c,
                    signs: s,
                    times_x,
                };
                let bad = horner(&mut out, x, &p);
                let mut any = false;
                for (o, &xi) in out.iter().zip(x) {
                    let want = reference(xi, &c, s, times_x);
                    assert!(
                        o.to_bits() == want.to_bits() || (o.is_nan() && want.is_nan()),
                        "x={xi:e}: {o:e} != {want:e}"
                    );
                    any |= !want.is_finite();
                }
                assert_eq!(bad, any, "n={n}");
            }
        }
    }
}
