export const TAX_RATE = 0.2;

// the rounder's types, re-exported as types only (TypeScript 5.0): the grammar lost the whole file
export type * from "./rounder";

/** The amount with its tax. */
export function withTax(amount: number): number {
  return amount * (1 + TAX_RATE);
}

/** Prices as the shop shows them. */
export const prices = {
  shown(amount: number): string {
    return withTax(amount).toFixed(2);
  },
  free: (amount: number): boolean => amount === 0,
} as const;

/** A price rounded to cents, or each of a list: one function, its overloads above its body. */
export function rounded(amount: number): number;
export function rounded(amounts: number[]): number[];
export function rounded(value: number | number[]): number | number[] {
  return Array.isArray(value) ? value.map((v) => Math.round(v * 100) / 100) : Math.round(value * 100) / 100;
}

export class Till {
  /** Opens the till with a float, or with none. */
  open(float: number): void;
  open(): void;
  open(float = 0): void {
    this.float = float;
  }

  float = 0;
}

export declare function audit(amount: number): void;
export declare function audit(amounts: number[]): void;

/** Sums prices: a function cast as it is handed to the call that decorates it. */
export const total: (prices: number[]) => number = decorate(
  function total(prices: number[]) {
    return prices.reduce((sum, p) => sum + withTax(p), 0);
  } as any,
  "total",
);

/** The shop's one register, made by a function called at once. */
export const register = (function () {
  const till = new Till();
  return till;
})();

/** The shop's counter, a class a function called at once declares and returns (tree-shaking's habit). */
export const Counter = /* @__PURE__ */ (() => {
  class Counter extends Till {
    /** Counts a sale. */
    count(amount: number): number {
      return withTax(amount);
    }
  }
  return Counter;
})();
