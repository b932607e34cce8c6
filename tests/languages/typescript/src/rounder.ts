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
