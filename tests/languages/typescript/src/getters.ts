import { Cart } from "./cart";

/** Reads a cart's values by key. */
export interface Get<T> {
  <Key extends keyof T>(key: Key): T[Key]
  <
    Key extends string,
    Fallback = undefined
  >(key: Key, fallback: Fallback): unknown
}

/** The getter of one cart. */
export function cartGetter(cart: Cart): Get<Cart> {
  return ((key: keyof Cart) => cart[key]) as Get<Cart>;
}
