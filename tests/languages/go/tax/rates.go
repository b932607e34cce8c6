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

	// Percent is a rate in hundredths: a named type its comment describes is a chunk of its own.
	Percent float64

	cents int64

	// Loader loads the rates: a function type, a contract other code implements (it declares).
	Loader func() (Rates, error)
)

// (no doc below: a named type the file gives methods is their owner's chunk all the same)

type countries []string

func (c countries) Len() int { return len(c) }

// Of is the rate of a country, 0 where none is known.
func (r Rates) Of(country string) float64 {
	return r.byCountry[country]
}
