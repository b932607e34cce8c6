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

// the macro by its crate's path (tower's `pin_project_lite::pin_project! {`)
pin_project_lite::pin_project! {
    /// A receipt being written.
    pub struct Receipt {
        total: f64,
    }
}

/// Rounded to cents, outside the tests.
#[cfg(not(test))]
pub fn rounded(amount: f64) -> f64 {
    (amount * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An async test, by its own attribute too.
    #[tokio::test(flavor = "current_thread")]
    async fn rounds_to_cents() {
        assert_eq!(rounded(with_tax(1.0)), 1.2);
    }

    // tests a macro writes: test code, no statement of the file's <module>
    macro_rules! taxes {
        ($name:ident, $amount:expr, $taxed:expr) => {
            #[test]
            fn $name() {
                assert_eq!(with_tax($amount), $taxed);
            }
        };
    }

    taxes!(one, 1.0, 1.2);
}

/// Something that taxes an amount.
pub trait Taxer {
    fn tax(&mut self, amount: f64) -> f64;
}

/// A standard taxer, by rate.
pub struct Standard;

impl Taxer for Standard {
    fn tax(&mut self, amount: f64) -> f64 {
        with_tax(amount)
    }
}

// a mutable reference to a taxer taxes as it does: the impl's methods are the referenced type's
impl<'a, T: Taxer> Taxer for &'a mut T {
    fn tax(&mut self, amount: f64) -> f64 {
        (**self).tax(amount)
    }
}
