use crate::tax::with_tax;

const MAX_ITEMS: usize = 10;

/// A cart of prices.
#[derive(Default)]
pub struct Cart {
    prices: Vec<f64>,
}

impl Cart {
    pub fn add(&mut self, price: f64) {
        if self.prices.len() >= MAX_ITEMS {
            panic!("too many items");
        }
        self.prices.push(price);
    }

    pub fn total(&self) -> f64 {
        with_tax(self.prices.iter().sum())
    }
}

pub fn checkout(cart: &Cart) -> f64 {
    cart.total()
}
