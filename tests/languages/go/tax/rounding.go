package tax

// Rounding says how an amount's cents are rounded.
type Rounding int

// the ways to round: a type's values, declared below it, are the type's
const (
	// HalfUp rounds half a cent up.
	HalfUp Rounding = iota
	// Down drops the fraction.
	Down
)

const unrelated = 1
