//! Finds the Python files of a source tree that may contain marked functions (build backend).

use std::path::Path;

use walkdir::WalkDir;

/// Directories never descended into.
const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "build",
    "dist",
    ".eggs",
];

/// Every `.py` file under `root` whose bytes mention `vectorize`, sorted, as paths relative to
/// `root` with `/` separators.
pub fn scan_tree(root: &Path) -> std::io::Result<Vec<String>> {
    let mut out = vec![];
    let walker = WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_dir()
                && e.depth() > 0
                && (SKIP_DIRS.contains(&name.as_ref()) || name.ends_with(".egg-info")))
        });
    for entry in walker {
        let entry = entry.map_err(std::io::Error::other)?;
        if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "py") {
            continue;
        }
        let bytes = std::fs::read(entry.path())?;
        if memmem(&bytes, b"vectorize") {
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
    Ok(out)
}

fn memmem(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_only_files_that_mention_the_marker() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg/__pycache__")).unwrap();
        std::fs::write(
            dir.path().join("pkg/a.py"),
            "from array_vectorize import vectorize\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("pkg/b.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("pkg/__pycache__/c.py"), "vectorize\n").unwrap();
        assert_eq!(scan_tree(dir.path()).unwrap(), vec!["pkg/a.py".to_string()]);
    }
}
