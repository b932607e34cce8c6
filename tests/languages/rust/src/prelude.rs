#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//! The shop's prelude: the types a checkout needs, in one `use`.
//!
//! reqwest's `lib.rs` opens so: its crate guide came after the inner attributes and was no chunk's.

/// The currency every price is in.
pub const CURRENCY: &str = "EUR";
