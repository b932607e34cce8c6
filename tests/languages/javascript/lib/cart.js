const { withTax } = require("./util");

const MAX_ITEMS = 10;

/** A cart of prices. */
class Cart {
  constructor() {
    this.prices = [];
  }

  add(price) {
    if (this.prices.length >= MAX_ITEMS) {
      throw new Error("too many items");
    }
    this.prices.push(price);
  }

  total() {
    return withTax(this.prices.reduce((a, b) => a + b, 0));
  }
}

/** How many prices: a property its getter computes, defined on the class's prototype (a method of it). */
Object.defineProperty(Cart.prototype, "size", {
  get() {
    return this.prices.length;
  },
});

function checkout(cart) {
  return cart.total();
}

module.exports = { Cart, checkout };
