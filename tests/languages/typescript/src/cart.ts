import { withTax } from "./util";

const MAX_ITEMS = 10;

/** A cart of prices. */
export class Cart {
  private prices: number[] = [];

  add(price: number): void {
    if (this.prices.length >= MAX_ITEMS) {
      throw new Error("too many items");
    }
    this.prices.push(price);
  }

  total(): number {
    return withTax(this.prices.reduce((a, b) => a + b, 0));
  }
}

export const checkout = (cart: Cart): number => cart.total();
