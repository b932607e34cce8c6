pub const RATE: f64 = 0.2;

/// The amount with its tax.
pub fn with_tax(amount: f64) -> f64 {
    amount * (1.0 + RATE)
}
