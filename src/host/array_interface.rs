//! NumPy's C array interface (`PyArrayInterface`, what an array's `__array_struct__` capsule
//! points to), read by the binding so that the runtime's kernels take NumPy arrays themselves
//! rather than their data addresses: `a.__array_interface__["data"][0]` builds a dict of six
//! entries per array, ~1.2 us of a 10-element call, where the capsule costs ~0.1 us. Plain
//! data, no Python: `python.rs` gets the capsule and hands its pointer here.

use std::os::raw::{c_char, c_int, c_void};

/// NumPy's `PyArrayInterface` (numpy/ndarraytypes.h, version 2 of the array interface: the
/// layout of NumPy 1 and 2).
#[repr(C)]
pub struct ArrayInterface {
    /// Always 2: the interface's version check.
    pub two: c_int,
    pub nd: c_int,
    /// `'f'` for a floating-point array.
    pub typekind: c_char,
    pub itemsize: c_int,
    pub flags: c_int,
    pub shape: *const isize,
    pub strides: *const isize,
    pub data: *mut c_void,
    pub descr: *mut c_void,
}

// NumPy's array flags, as the interface reports them.
const C_CONTIGUOUS: c_int = 0x1;
const ALIGNED: c_int = 0x100;
const NOTSWAPPED: c_int = 0x200;
const WRITEABLE: c_int = 0x400;

/// The data pointer and element count of the array `iface` describes, when it is a
/// C-contiguous, aligned, native-order float64 array (and writeable when `write`); None
/// otherwise.
///
/// # Safety
/// `iface.shape` points to `iface.nd` sizes when `nd > 0` (NumPy's interface does while its
/// capsule lives).
pub unsafe fn float64_lanes(iface: &ArrayInterface, write: bool) -> Option<(*mut f64, usize)> {
    let need = C_CONTIGUOUS | ALIGNED | NOTSWAPPED | if write { WRITEABLE } else { 0 };
    if iface.two != 2
        || iface.typekind != b'f' as c_char
        || iface.itemsize != 8
        || iface.flags & need != need
        || iface.nd < 0
        || (iface.nd > 0 && iface.shape.is_null())
    {
        return None;
    }
    let mut n: usize = 1;
    for k in 0..iface.nd as usize {
        // SAFETY: the caller's contract: `nd` sizes at `shape`.
        let size = unsafe { *iface.shape.add(k) };
        n = n.checked_mul(usize::try_from(size).ok()?)?;
    }
    let data = iface.data as *mut f64;
    if n > 0 && (data.is_null() || !data.is_aligned()) {
        return None;
    }
    Some((data, n))
}

/// Whether `n` float64 at `a` and `n` at `b` share no byte.
pub fn disjoint(a: *const f64, b: *const f64, n: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    let bytes = n.saturating_mul(std::mem::size_of::<f64>());
    n == 0 || a.saturating_add(bytes) <= b || b.saturating_add(bytes) <= a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface(
        shape: &[isize],
        data: *mut f64,
        typekind: u8,
        itemsize: c_int,
        flags: c_int,
    ) -> ArrayInterface {
        ArrayInterface {
            two: 2,
            nd: shape.len() as c_int,
            typekind: typekind as c_char,
            itemsize,
            flags,
            shape: shape.as_ptr(),
            strides: std::ptr::null(),
            data: data as *mut c_void,
            descr: std::ptr::null_mut(),
        }
    }

    #[test]
    fn only_contiguous_aligned_native_float64_is_read() {
        let mut buf = [0.0f64; 6];
        let p = buf.as_mut_ptr();
        let ok = C_CONTIGUOUS | ALIGNED | NOTSWAPPED;
        let (matrix, scalar, negative): (&[isize], &[isize], &[isize]) = (&[2, 3], &[], &[-1]);
        // (shape, typekind, itemsize, flags, write, lanes read, what)
        let cases = [
            (matrix, b'f', 8, ok, false, Some(6), "2-d"),
            (scalar, b'f', 8, ok, false, Some(1), "0-d"),
            (matrix, b'f', 8, ok, true, None, "not writeable"),
            (matrix, b'f', 8, ok | WRITEABLE, true, Some(6), "writeable"),
            (matrix, b'f', 4, ok, false, None, "float32"),
            (matrix, b'i', 8, ok, false, None, "int64"),
            (
                matrix,
                b'f',
                8,
                ALIGNED | NOTSWAPPED,
                false,
                None,
                "strided",
            ),
            (
                matrix,
                b'f',
                8,
                C_CONTIGUOUS | ALIGNED,
                false,
                None,
                "byte-swapped",
            ),
            (
                matrix,
                b'f',
                8,
                C_CONTIGUOUS | NOTSWAPPED,
                false,
                None,
                "unaligned",
            ),
            (negative, b'f', 8, ok, false, None, "negative size"),
        ];
        for (shape, kind, size, flags, write, want, what) in cases {
            // SAFETY: `shape` outlives the interface.
            let got = unsafe { float64_lanes(&iface(shape, p, kind, size, flags), write) };
            assert_eq!(got, want.map(|n| (p, n)), "{what}");
        }
        let empty = iface(&[0], std::ptr::null_mut(), b'f', 8, ok);
        // SAFETY: as above.
        assert_eq!(
            unsafe { float64_lanes(&empty, false) },
            Some((std::ptr::null_mut(), 0))
        );
        let mut bad = iface(matrix, p, b'f', 8, ok);
        bad.two = 3;
        // SAFETY: as above.
        assert_eq!(
            unsafe { float64_lanes(&bad, false) },
            None,
            "not the interface"
        );
    }

    #[test]
    fn overlap_is_detected() {
        let buf = [0.0f64; 8];
        let p = buf.as_ptr();
        // SAFETY: offsets within `buf`.
        let q = unsafe { p.add(4) };
        assert!(disjoint(p, q, 4));
        assert!(!disjoint(p, q, 5));
        assert!(!disjoint(q, p, 5));
        assert!(!disjoint(p, p, 1));
        assert!(disjoint(p, p, 0));
    }
}
