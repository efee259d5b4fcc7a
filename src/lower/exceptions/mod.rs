//! Raising, per lane (D11): `raise` and `assert` (`raise`), `try`/`except`/`else`/`finally`
//! (`try_stmt`), and the exception classes they name, by their MRO (`classes`).

pub(in crate::lower) mod classes;
pub(in crate::lower) mod raise;
pub(in crate::lower) mod try_stmt;

use std::collections::BTreeSet;

use crate::diagnostics::SourceId;
use crate::ir::{RaiseSite, Value};

/// Where a statement stands: its source and span.
type At = (SourceId, (usize, usize));

/// The raise and `try` state of the function being lowered (D11). Its fields are this family's;
/// the others ask through the methods below.
#[derive(Default)]
pub(in crate::lower) struct ExceptionState {
    /// Every `raise`/`assert` lowered so far; site `k` has code `k + 1`.
    pub(in crate::lower::exceptions) sites: Vec<RaiseSite>,
    /// What each raise site's exception is and where it stands (`SiteInfo`), by site.
    pub(in crate::lower::exceptions) info: Vec<SiteInfo>,
    /// The values in a returns list that are raise codes, not returned values.
    pub(in crate::lower::exceptions) codes: BTreeSet<Value>,
    /// How many `try` bodies enclose the code being lowered (numeric errors raise there).
    pub(in crate::lower::exceptions) in_try: usize,
    /// How many blocks were open at the outermost `try` body around the code being lowered.
    pub(in crate::lower::exceptions) try_block_depth: usize,
    /// How many `finally` clauses enclose the code being lowered (nothing may raise there).
    pub(in crate::lower::exceptions) in_finally: usize,
    /// Where each enclosing `try` statement stands.
    pub(in crate::lower::exceptions) try_spans: Vec<At>,
    /// The per-lane raise code of each enclosing `except` clause, for a bare `raise`.
    pub(in crate::lower::exceptions) handling: Vec<Value>,
    /// Per enclosing `try` body: whether a clause of its statement may catch a `KeyError` or
    /// an `IndexError` (bare, or naming one of them, `LookupError`, `Exception`, `BaseException`).
    pub(in crate::lower::exceptions) lookup_caught: Vec<bool>,
}

/// A raise site's class, by its MRO, when known (D11: `except` matches on it), and where its
/// `raise` stands (None for a numeric error of a `try` body).
pub(in crate::lower::exceptions) struct SiteInfo {
    pub(in crate::lower::exceptions) class: Option<classes::Mro>,
    pub(in crate::lower::exceptions) at: Option<At>,
}

/// What [`ExceptionState::mark`] saw: the sites and codes recorded so far.
pub(in crate::lower) struct RaiseMark {
    sites: usize,
    codes: BTreeSet<Value>,
}

impl ExceptionState {
    /// Whether the code being lowered is inside a `try` body.
    pub(in crate::lower) fn in_try(&self) -> bool {
        self.in_try > 0
    }

    /// Whether the code being lowered is inside a `try` body or a `finally` clause: where an
    /// exception whose class lowering does not know cannot stand (D19, D23).
    pub(in crate::lower) fn in_try_statement(&self) -> bool {
        self.in_try > 0 || self.in_finally > 0
    }

    /// Whether an enclosing `try` statement may catch a `KeyError` or an `IndexError`: one that
    /// a uniform value's subscript, read once per call, could not send to its clause per lane.
    pub(in crate::lower) fn lookup_caught(&self) -> bool {
        self.lookup_caught.iter().any(|c| *c)
    }

    /// How many raise sites were recorded so far: a mark for [`Self::forget_sites`] and
    /// [`Self::site_args_from`].
    pub(in crate::lower) fn site_count(&self) -> usize {
        self.sites.len()
    }

    /// Forgets the raise sites recorded from `mark` on (by a lowering that is done again).
    pub(in crate::lower) fn forget_sites(&mut self, mark: usize) {
        self.sites.truncate(mark);
        self.info.truncate(mark);
    }

    /// The sites and codes recorded so far, for [`Self::rewind_if_raised`].
    pub(in crate::lower) fn mark(&self) -> RaiseMark {
        RaiseMark {
            sites: self.sites.len(),
            codes: self.codes.clone(),
        }
    }

    /// Whether a raise site was recorded since `mark`; if so, forgets what was recorded since.
    pub(in crate::lower) fn rewind_if_raised(&mut self, mark: RaiseMark) -> bool {
        if self.sites.len() == mark.sites {
            return false;
        }
        self.forget_sites(mark.sites);
        self.codes = mark.codes;
        true
    }

    /// Whether `v` is a raise code, not a returned value.
    pub(in crate::lower) fn is_code(&self, v: Value) -> bool {
        self.codes.contains(&v)
    }

    /// Records that `v` is a raise code (one merged out of a loop or an `if`).
    pub(in crate::lower) fn add_code(&mut self, v: Value) {
        self.codes.insert(v);
    }

    /// The values the raise sites recorded from `mark` on read, as (site, position, value).
    pub(in crate::lower) fn site_args_from(&self, mark: usize) -> Vec<(usize, usize, Value)> {
        let mut out = vec![];
        for (site, s) in self.sites.iter().enumerate().skip(mark) {
            out.extend(s.args.iter().enumerate().map(|(i, &a)| (site, i, a)));
        }
        out
    }

    /// Makes raise site `site` read `v` in position `i` (a value merged or snapshot out of the
    /// `if` or loop it stands in).
    pub(in crate::lower) fn set_site_arg(&mut self, site: usize, i: usize, v: Value) {
        self.sites[site].args[i] = v;
    }

    /// Where raise site `site`'s statement stands, when it has one.
    pub(in crate::lower) fn site_at(&self, site: usize) -> Option<At> {
        self.info[site].at
    }

    /// Every raise site recorded, for the function's [`crate::ir::Raises`].
    pub(in crate::lower) fn take_sites(&mut self) -> Vec<RaiseSite> {
        std::mem::take(&mut self.sites)
    }
}
