package tax

type (
	// Rates holds a tax rate per country: each type of a grouped declaration is a chunk of its own.
	Rates struct {
		byCountry map[string]float64
	}

	// RateSource loads rates from somewhere.
	RateSource interface {
		Load() (Rates, error)
	}

	// Percent is a rate in hundredths: a one-line named type stays a statement.
	Percent float64
)

// Of is the rate of a country, 0 where none is known.
func (r Rates) Of(country string) float64 {
	return r.byCountry[country]
}
