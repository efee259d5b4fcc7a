//! Content hashing and atomic file writes for the import hook's cache and the build backend.

use std::io::Write;
use std::path::Path;

use sha2::{Digest, Sha256};

/// Lowercase hex sha256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    let mut hex = [0u8; 64];
    sha256_hex_into(data, &mut hex).to_owned()
}

/// Lowercase hex sha256 of `data`, written into `hex`: no heap allocation, so that a warm import,
/// whose only call into the core this is, never starts the allocator (lib.rs).
pub fn sha256_hex_into<'a>(data: &[u8], hex: &'a mut [u8; 64]) -> &'a str {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (i, b) in Sha256::digest(data).iter().enumerate() {
        hex[2 * i] = DIGITS[usize::from(b >> 4)];
        hex[2 * i + 1] = DIGITS[usize::from(b & 0xf)];
    }
    std::str::from_utf8(hex).expect("hex digits are ASCII")
}

/// A 64-bit checksum of `data` for the integrity of cache payloads: torn, truncated and
/// bit-flipped files, not tampering (staleness is the content key's job, a sha256 of the source).
/// Four independent lanes of `(lane ^ word) * odd`, so it runs near memory speed (a payload's
/// second sha256 cost a warm import as much as reading it); a change of any one 8-byte word
/// always changes the result, because every step is a bijection of the lane and of the word.
pub fn checksum64(data: &[u8]) -> u64 {
    const K: [u64; 4] = [
        0x9E37_79B9_7F4A_7C15,
        0xC2B2_AE3D_27D4_EB4F,
        0x1656_67B1_9E37_79F9,
        0x85EB_CA77_C2B2_AE63,
    ];
    let mut lanes = K;
    let mut blocks = data.chunks_exact(32);
    for block in &mut blocks {
        for (lane, (word, k)) in lanes.iter_mut().zip(block.chunks_exact(8).zip(K)) {
            *lane = (*lane ^ word_le(word)).wrapping_mul(k).rotate_left(31);
        }
    }
    let tail = blocks.remainder();
    for (i, word) in tail.chunks(8).enumerate() {
        lanes[i] = (lanes[i] ^ word_le(word))
            .wrapping_mul(K[i])
            .rotate_left(31);
    }
    let mut h = (data.len() as u64).wrapping_mul(K[0]);
    for lane in lanes {
        h = (h ^ finalize(lane)).wrapping_mul(K[1]);
    }
    finalize(h)
}

/// Up to 8 bytes as a little-endian word, zero-padded.
fn word_le(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// A bijective mix of all 64 bits (the murmur3 finalizer).
fn finalize(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

/// Writes `data` to `path` atomically: a temporary file in the same directory, flushed, then
/// renamed over `path`. Readers see the old file or the new one, never a torn write. With
/// `mode` (POSIX only) the file is created with `mode & 0o666`, restricted by the process umask,
/// as CPython's `_write_atomic` creates a `.pyc`; without it, owner read and write only.
pub fn write_atomic(path: &Path, data: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-array-vectorize-");
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode & 0o666));
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(data)?;
    tmp.as_file().sync_data().ok();
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn checksum_notices_every_single_bit_flip_and_length_change() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let sum = checksum64(&data);
        assert_eq!(sum, checksum64(&data.clone()));
        for i in 0..data.len() {
            for bit in 0..8 {
                let mut flipped = data.clone();
                flipped[i] ^= 1 << bit;
                assert_ne!(checksum64(&flipped), sum, "byte {i} bit {bit}");
            }
        }
        for n in 0..data.len() {
            assert_ne!(checksum64(&data[..n]), sum, "truncated to {n}");
        }
        let mut padded = data.clone();
        padded.push(0);
        assert_ne!(checksum64(&padded), sum);
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.bin");
        write_atomic(&p, b"first", None).unwrap();
        write_atomic(&p, b"second", None).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        // No temporary files are left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn atomic_write_mode_is_restricted_to_read_write_bits() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.bin");
        write_atomic(&p, b"x", Some(0o100600)).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600); // 0o600 survives any umask that leaves the owner alone
        write_atomic(&p, b"y", None).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
