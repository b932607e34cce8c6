pub mod cart;
pub mod tax;

pub use crate::cart::Cart;
use crate::tax::RATE;
