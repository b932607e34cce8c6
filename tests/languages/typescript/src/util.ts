export const TAX_RATE = 0.2;

/** The amount with its tax. */
export function withTax(amount: number): number {
  return amount * (1 + TAX_RATE);
}
