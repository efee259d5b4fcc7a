//! The front end of one function, shared by the compiled function and every helper it inlines:
//! cut the function's text out of what follows it, parse it, find the `def` or lambda, validate;
//! or, for the static compile, take the function from its module's tree (tree.rs), parsed once.

pub mod extract;
pub mod identifiers;
pub mod source;
pub mod tree;
pub mod validate;

use crate::diagnostics::{Diagnostic, SourceText};
use extract::ParsedFunction;
use tree::FunctionTree;

/// Where the front end finds a function.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    /// Text whose first line starts the function (the rest of its file may follow), at line
    /// `first_line` of `path`: the decorator's, parsed here.
    Text {
        source: &'a str,
        path: &'a str,
        first_line: usize,
    },
    /// A function of a module the static compile parsed once (tree.rs): nothing is parsed.
    Tree(&'a FunctionTree),
}

/// The function `name` (a `__qualname__`, see `extract::find_function`) found in `input`, and
/// validated, validation's diagnostics going to `diags`. Returns the function and its own text;
/// `Err` when the text does not parse or holds no such function.
pub fn parse_function<'t>(
    sources: &mut Vec<SourceText>,
    input: Input<'t>,
    name: &str,
    diags: &mut Vec<Diagnostic>,
) -> Result<(ParsedFunction, &'t str), Diagnostic> {
    let (func, text) = match input {
        Input::Text {
            source,
            path,
            first_line,
        } => {
            let text = &source[..crate::frontend::source::block_len(
                source,
                crate::frontend::identifiers::is_lambda(name),
            )];
            let (id, body) = extract::parse_text(sources, path, text, first_line)?;
            (extract::find_function(id, sources, &body, name)?, text)
        }
        Input::Tree(tree) => tree::function_of_tree(sources, tree, name)?,
    };
    validate::validate(&func, diags);
    Ok((func, text))
}

/// The text the function `name` (a `__qualname__`) whose text starts `source` is compiled from:
/// its whole block (decorators, header, body) for a `def`, the one `lambda` expression
/// [`extract::find_function`] picks for a lambda. The decorator compiles that text with Python
/// and compares the result with the live code object before trusting the text (issue 28 item 2:
/// a file edited after its module was loaded). `None` when the text does not parse or holds no
/// such lambda.
pub fn function_text(source: &str, name: &str) -> Option<String> {
    let lambda = identifiers::is_lambda(name);
    let text = &source[..source::block_len(source, lambda)];
    if !lambda {
        return Some(text.to_string());
    }
    let mut sources = vec![];
    let (id, body) = extract::parse_text(&mut sources, "<lambda>", text, 1).ok()?;
    let func = extract::find_function(id, &sources, &body, name).ok()?;
    sources[id]
        .text
        .get(func.start..func.end)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_line(source: &str, first_line: usize) -> Input<'_> {
        Input::Text {
            source,
            path: "m.py",
            first_line,
        }
    }

    #[test]
    fn cuts_the_function_out_of_its_file_and_validates_it() {
        let mut sources = vec![];
        let mut diags = vec![];
        let src = "def f(x):\n    while x:\n        x = x @ x\n    return x\nprint(f)\n";
        let (func, text) =
            parse_function(&mut sources, at_line(src, 3), "f", &mut diags).expect("parses");
        assert_eq!(func.name, "f");
        assert!(text.ends_with("return x\n"), "{text:?}");
        assert_eq!(diags.len(), 1, "the `@` operator is reported");
        let err = parse_function(&mut sources, at_line("def g(:\n", 1), "g", &mut diags);
        assert!(err.is_err());
    }

    #[test]
    fn function_text_is_the_block_or_the_lambda_compiled() {
        let src = "@deco\ndef f(x):\n    return x\ny = 1\n";
        assert_eq!(
            function_text(src, "f").as_deref(),
            Some("@deco\ndef f(x):\n    return x\n")
        );
        let lam = "    a, b = vec(lambda x: (x +\n  1.0)), vec(lambda x: x * 3.0)\nz = 2\n";
        assert_eq!(
            function_text(lam, "make.<locals>.<lambda>").as_deref(),
            Some("lambda x: (x +\n  1.0)")
        );
        assert_eq!(function_text("z = 1\n", "<lambda>"), None);
    }
}
