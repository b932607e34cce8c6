pub mod cart;
pub mod tax;
