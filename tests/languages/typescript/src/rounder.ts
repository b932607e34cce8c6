/**
Rounds an amount to the currency's cents: a contract other code implements.
*/
export interface Rounder {
	round(amount: number): number;
}

export abstract class Money {
	abstract cents(): number;

	#scale(): number {
		return 100;
	}
}

/** Rounds by a rule: a call signature per shape, each with its doc. */
export interface Rounding {
  /** Rounds one amount. */
  <Amount extends number>(amount: Amount): number

  /** Rounds each amount. */
  <Amount extends number>(amounts: Amount[]): number[]
}

export function roundAll(amounts: number[]): number[] {
  return amounts.map((a) => Math.round(a));
}

// A list of what the file defines is no code of its own.
export { roundAll as roundEach };
