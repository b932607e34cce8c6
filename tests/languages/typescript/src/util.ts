export const TAX_RATE = 0.2;

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
