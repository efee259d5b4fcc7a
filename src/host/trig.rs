//! `sin` and `cos` of each element in one call of the C library (issue 30): the runtime's
//! `_vec_sincos` (hook_py/array_vectorize/runtime/trig.py) runs it on NumPy float64 buffers
//! where a body takes both of one array (Kepler's equation, rotations, equations of time).
//!
//! NumPy's float64 `sin` and `cos` call the C library's, one element at a time (bit for bit
//! `math.sin` and `math.cos` on glibc, docs/benchmarks.md): two passes, two argument
//! reductions. glibc's `sincos` runs the same code paths as its `sin` and `cos` (the same
//! `do_sin`, `do_cos`, `reduce_sincos` of s_sin.c and s_sincos.c: equal results by
//! construction) with one reduction and one pass, which is what numba's compiled loop calls for
//! `math.sin(x)` beside `math.cos(x)` (LLVM joins the two). Elsewhere it is `f64::sin_cos`, the
//! platform's `sin` and `cos`. The runtime uses it only where its results equal `xp.sin`'s and
//! `xp.cos`'s on a probe of special and ordinary values (D10: an optimization never changes a
//! lane's bits).

/// `(sin x, cos x)` from glibc's `sincos`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn sin_cos(x: f64) -> (f64, f64) {
    #[link(name = "m")]
    extern "C" {
        fn sincos(x: f64, sin: *mut f64, cos: *mut f64);
    }
    let (mut s, mut c) = (0.0, 0.0);
    // SAFETY: `sincos` writes one f64 through each pointer, both to locals.
    unsafe { sincos(x, &mut s, &mut c) };
    (s, c)
}

/// `(sin x, cos x)`: the platform's `sin` and `cos`.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn sin_cos(x: f64) -> (f64, f64) {
    x.sin_cos()
}

/// Writes `sin(x[i])` to `sin[i]` and `cos(x[i])` to `cos[i]` for every `i` of `x` (the three
/// slices are one length). Returns whether some `x[i]` is an infinity, a NaN or subnormal: the
/// lanes for which the C library may raise a floating-point flag (invalid, underflow) that
/// NumPy's `sin` and `cos` would report as a warning, which the runtime then gets from them.
pub fn sin_cos_into(x: &[f64], sin: &mut [f64], cos: &mut [f64]) -> bool {
    assert!(x.len() == sin.len() && x.len() == cos.len());
    let mut flagged = false;
    for ((x, s), c) in x.iter().zip(sin.iter_mut()).zip(cos.iter_mut()) {
        (*s, *c) = sin_cos(*x);
        flagged |= !x.is_finite() || (*x != 0.0 && x.abs() < f64::MIN_POSITIVE);
    }
    flagged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lane_is_the_c_librarys_sin_and_cos_bit_for_bit() {
        // Ordinary, huge (Payne-Hanek reduction), tiny, subnormal, signed zeros and specials.
        let mut x = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.855469,
            2.426265,
            1e-300,
            5e-324,
            1e22,
            -1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut v = 0.1_f64;
        while v < 1e12 {
            x.push(v);
            x.push(-v * 1.37);
            v *= 1.0137;
        }
        let (mut s, mut c) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        assert!(sin_cos_into(&x, &mut s, &mut c)); // infinities, NaN, subnormals
        let (mut s1, mut c1) = ([0.0; 3], [0.0; 3]);
        assert!(!sin_cos_into(&[0.0, -0.0, 1e-300], &mut s1, &mut c1));
        // The platform's `sin` and `cos` each in a loop of its own, through `black_box`: LLVM
        // joins a `sin` and a `cos` of one operand into `sincos`, which would judge itself.
        for i in 0..x.len() {
            let sin = std::hint::black_box(x[i]).sin();
            assert_eq!(s[i].to_bits(), sin.to_bits(), "sin {}", x[i]);
        }
        for i in 0..x.len() {
            let cos = std::hint::black_box(x[i]).cos();
            assert_eq!(c[i].to_bits(), cos.to_bits(), "cos {}", x[i]);
        }
    }
}
