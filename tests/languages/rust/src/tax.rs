pub const RATE: f64 = 0.2;

/// The amount with its tax.
pub fn with_tax(amount: f64) -> f64 {
    amount * (1.0 + RATE)
}

macro_rules! cfg_vat {
    ($($item:item)*) => { $( #[cfg(feature = "vat")] $item )* }
}

cfg_vat! {
    /// The tax alone.
    pub fn tax_of(amount: f64) -> f64 {
        with_tax(amount) - amount
    }

    pub struct Rates {
        pub standard: f64,
    }
}
