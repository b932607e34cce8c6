//! The shop: a cart of prices and the tax on them.

pub mod cart;
pub mod tax;

pub use crate::cart::Cart;
use crate::tax::RATE;
