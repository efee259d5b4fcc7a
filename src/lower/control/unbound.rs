//! Unbound names and missing returns, per lane (D20).
//!
//! A local that some lanes never assigned (an `if`/`elif` chain without a final `else`, a loop
//! that may not run, an assignment before a `break`) is read as CPython reads it: those lanes
//! raise UnboundLocalError there (D11: the first such element in C order), the others read
//! their value. Such a name is *tracked*: it carries a flag, an ordinary variable of the
//! frame (`<name>.bound`, named `<name>_bound` in generated code), false where the function
//! starts and true after each assignment, merged by `if`s and carried by loops like any other
//! variable. A merge where one side never assigned the name keeps the other side's value: the
//! flag says which lanes may read it.
//!
//! ```python
//! if day < 90:                        stage = 1;  stage_bound = True
//!     stage = 1                       ...
//! elif day < 250:              ->     stage = where(c1, 1, 2)
//!     stage = 2                       stage_bound = c1 | c2
//! return stage * 10.0                 UnboundLocalError where not stage_bound, then stage * 10.0
//! ```
//!
//! Which names to track is learned by lowering: a first lowering reports every read that may
//! find a name unbound, and the function is lowered again with those names tracked
//! (`Lowerer::lower`). A lane of the marked function that ends without returning (or returns
//! None) is an error naming the element: an array cannot hold None (docs/semantics.md); a
//! helper's such lane returns None (`values/none_lanes.rs`).

use std::collections::BTreeSet;

use rustpython_parser::ast;

use crate::ir::{Const, Value};
use crate::lower::{Done, Frame, Lowerer, Var, R};

/// The names tracked in this lowering, and those found to need it.
#[derive(Debug, Default)]
pub(in crate::lower) struct Unbound {
    /// Names that carry a flag of the lanes that assigned them.
    pub(in crate::lower) tracked: BTreeSet<String>,
    /// Names read where some lanes may not have assigned them, while not tracked.
    pub(in crate::lower) found: BTreeSet<String>,
}

/// The frame variable holding whether `name` is bound, per lane.
pub(in crate::lower) fn flag_of(name: &str) -> String {
    format!("{name}.bound")
}

impl Lowerer<'_> {
    /// Notes a read of `name` that some lanes may reach with it unassigned, while it is not
    /// tracked: the function is lowered again, tracking it (`Lowerer::lower`).
    pub(in crate::lower) fn note_unbound_read(&mut self, name: &str) {
        self.control.unbound.found.insert(name.to_string());
    }

    /// Whether `name` carries a flag of the lanes that assigned it.
    pub(in crate::lower) fn tracks(&self, name: &str) -> bool {
        self.control.unbound.tracked.contains(name)
    }

    /// At the start of a body: every tracked local not yet bound (not a parameter) is unbound.
    pub(in crate::lower) fn start_unbound(&mut self, frame: &mut Frame) {
        let names: Vec<String> = self
            .control
            .unbound
            .tracked
            .iter()
            .filter(|n| frame.locals.contains(*n) && !frame.vars.contains_key(*n))
            .cloned()
            .collect();
        for name in names {
            let f = self.konst(Const::Bool(false));
            frame.vars.insert(flag_of(&name), Var::Def(f));
        }
    }

    /// After `name` is assigned: bound on every lane of the path.
    pub(in crate::lower) fn mark_bound(&mut self, frame: &mut Frame, name: &str) {
        if self.tracks(name) {
            let t = self.konst(Const::Bool(true));
            frame.vars.insert(flag_of(name), Var::Def(t));
        }
    }

    /// The flags a loop assigning `carried` carries too.
    pub(in crate::lower) fn carried_flags(&self, carried: &[String]) -> Vec<String> {
        carried
            .iter()
            .filter(|n| self.tracks(n))
            .map(|n| flag_of(n))
            .collect()
    }

    /// A read of the tracked `name`, which `var` holds (None: never assigned on any path so
    /// far). Lanes of the path where it is unbound raise UnboundLocalError (NameError for a
    /// variable of an enclosing function, as CPython words it); None when the frame has no
    /// flag for it (a frame lowered before tracking: the caller reports the read).
    pub(in crate::lower) fn read_tracked(
        &mut self,
        frame: &mut Frame,
        name: &str,
        var: Option<Var>,
        node: &ast::Expr,
    ) -> Option<R<Value>> {
        let key = flag_of(name);
        let enclosing = !frame.vars.contains_key(name) && !frame.locals.contains(name);
        let flag = if enclosing {
            frame.outer.get(&key)
        } else {
            frame.vars.get(&key)
        };
        let Some(Var::Def(flag)) = flag.copied() else {
            return None;
        };
        let value = match var {
            Some(Var::Def(v)) => v,
            // D18: a container no loop phi carries; reported at the read (`read_name`).
            Some(Var::MaybeUndef) if self.loops.is_container_without_phi(name) => return None,
            _ => self.konst(Const::Bool(false)),
        };
        if matches!(self.const_of(flag), Some(Const::Bool(true))) {
            return Some(Ok(value));
        }
        let unbound = self.not(flag);
        let (class, free) = if enclosing {
            ("NameError", "True")
        } else {
            ("UnboundLocalError", "False")
        };
        // The class named first: the fuzz model reads a site's class from its head.
        let site = (
            format!("{class}(_vec_unbound('{name}', {free}))"),
            vec![],
            vec![],
        );
        if self
            .raise_site_where(frame, unbound, site, class, node)
            .is_err()
        {
            return Some(Err(()));
        }
        if !enclosing {
            // The lanes that read it unbound have left: it is bound on the others.
            self.mark_bound(frame, name);
        }
        Some(Ok(value))
    }

    /// The end of the marked function's body: its lanes that did not return return None,
    /// which an array cannot hold: an error naming the element (D20).
    pub(in crate::lower) fn fall_off_end(&mut self, frame: &mut Frame, end: &ast::Stmt) {
        let mask = match frame.flow.done {
            Done::Always => return,
            Done::Never => None,
            Done::Mask(m) => Some(self.not(m)),
        };
        if self.raise_returned_none(frame, mask, end).is_err() {
            frame.flow.done = Done::Always;
        }
    }

    /// `return` or `return None`: in the marked function an error naming the element (D20); in
    /// a helper, None on the lanes of the path.
    pub(in crate::lower) fn return_none(&mut self, frame: &mut Frame, stmt: &ast::Stmt) {
        if self.calls.in_compiled_function() {
            let _ = self.raise_returned_none(frame, None, stmt);
            return;
        }
        let (start, end) = crate::frontend::extract::span(stmt);
        let none = self.none_everywhere((frame.source, start, end));
        self.do_return(frame, none);
    }
}

/// Whether `value` (a `return`'s) is None: absent, or the literal.
pub(in crate::lower) fn returns_none(value: Option<&ast::Expr>) -> bool {
    match value {
        None => true,
        Some(ast::Expr::Constant(c)) => c.value.is_none(),
        Some(_) => false,
    }
}
