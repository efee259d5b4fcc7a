//! Values beyond numbers: constant tables (`tables`, D15), `dict.get` on them (`dict_get`),
//! `bisect` over them (`bisect`), reductions over tables unrolled (`reduce`), tuples and several
//! results (`tuples`, D13), local containers (`containers`, read and changed by `container_ops`
//! and `container_calls`, D18), values None on some lanes (`none_lanes`, D20), and uniform
//! per-call values (`uniform`, D14).

pub(in crate::lower) mod bisect;
pub(in crate::lower) mod container_calls;
pub(in crate::lower) mod container_ops;
pub(in crate::lower) mod containers;
pub(in crate::lower) mod dict_get;
pub(in crate::lower) mod none_lanes;
pub(in crate::lower) mod reduce;
pub(in crate::lower) mod tables;
pub(in crate::lower) mod tuples;
pub(in crate::lower) mod uniform;
