package tax

// Rate is the tax rate.
const Rate = 0.2

// WithTax is the amount with its tax.
func WithTax(amount float64) float64 {
	return amount * (1 + Rate)
}
