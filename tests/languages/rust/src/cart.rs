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

/// Anything that yields prices can be totalled.
pub trait Totalled {
    fn totalled(self) -> f64;
}

// A blanket impl: its method is the trait's (`Totalled.totalled`), not the type parameter's (`T.totalled`).
impl<T: Iterator<Item = f64>> Totalled for T {
    fn totalled(self) -> f64 {
        self.sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cart_of(prices: &[f64]) -> Cart {
        Cart { prices: prices.to_vec() }
    }

    #[test]
    fn adds_a_price() {
        let mut cart = cart_of(&[]);
        cart.add(1.0);
        assert_eq!(checkout(&cart), 1.2);
    }
}
