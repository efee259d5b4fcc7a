//! The front end of one function, shared by the compiled function and every helper it inlines:
//! cut the function's text out of what follows it, parse it, find the `def` or lambda, validate.

pub mod extract;
pub mod identifiers;
pub mod source;
pub mod validate;

use crate::diagnostics::{Diagnostic, SourceText};
use extract::ParsedFunction;

/// Parses the function `name` (a `__qualname__`, see `extract::find_function`) whose text starts `source` (the rest of its file may follow) and
/// validates it, validation's diagnostics going to `diags`. Returns the function and its own
/// text; `Err` when the text does not parse or holds no such function.
pub fn parse_function<'t>(
    sources: &mut Vec<SourceText>,
    path: &str,
    source: &'t str,
    first_line: usize,
    name: &str,
    diags: &mut Vec<Diagnostic>,
) -> Result<(ParsedFunction, &'t str), Diagnostic> {
    let text = &source[..crate::frontend::source::block_len(
        source,
        crate::frontend::identifiers::is_lambda(name),
    )];
    let (id, body) = extract::parse_text(sources, path, text, first_line)?;
    let func = extract::find_function(id, sources, &body, name)?;
    validate::validate(&func, diags);
    Ok((func, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_the_function_out_of_its_file_and_validates_it() {
        let mut sources = vec![];
        let mut diags = vec![];
        let src = "def f(x):\n    while x:\n        x = x @ x\n    return x\nprint(f)\n";
        let (func, text) =
            parse_function(&mut sources, "m.py", src, 3, "f", &mut diags).expect("parses");
        assert_eq!(func.name, "f");
        assert!(text.ends_with("return x\n"), "{text:?}");
        assert_eq!(diags.len(), 1, "the `@` operator is reported");
        let err = parse_function(&mut sources, "m.py", "def g(:\n", 1, "g", &mut diags);
        assert!(err.is_err());
    }
}
