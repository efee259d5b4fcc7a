//! Hashes the compiler's source into ARRAY_VECTORIZE_SOURCE_HASH, the second half of BUILD_ID.
use std::hash::Hasher;

fn main() {
    let mut files = vec![];
    collect("src", &mut files);
    files.sort();
    // FNV-1a: stable across Rust versions (std's SipHash keys are not guaranteed to be).
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for f in &files {
        println!("cargo:rerun-if-changed={f}");
        h.write(f.as_bytes());
        h.write(&std::fs::read(f).unwrap_or_default());
    }
    println!("cargo:rerun-if-changed=Cargo.toml");
    h.write(&std::fs::read("Cargo.toml").unwrap_or_default());
    println!(
        "cargo:rustc-env=ARRAY_VECTORIZE_SOURCE_HASH={:016x}",
        h.finish()
    );
}

struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn collect(dir: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let s = p.to_string_lossy().to_string();
        if p.is_dir() {
            collect(&s, out);
        } else if s.ends_with(".rs") {
            out.push(s);
        }
    }
}
