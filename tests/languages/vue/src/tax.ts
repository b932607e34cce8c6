/** The amount with its tax. */
export function withTax(amount: number): number {
  return amount * 1.2;
}
