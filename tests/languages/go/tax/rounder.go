package tax

// Rounder rounds an amount to the currency's cents: a contract other code implements.
type Rounder interface {
	Round(amount float64) float64
}
