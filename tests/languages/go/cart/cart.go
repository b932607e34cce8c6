// Package cart keeps the prices a customer chose and totals them with their tax.
package cart

import "example.com/shop/tax"

const MaxItems = 10

// Cart holds prices.
type Cart struct {
	prices []float64
}

// Add puts a price in the cart.
func (c *Cart) Add(price float64) {
	if len(c.prices) >= MaxItems {
		panic("too many items")
	}
	c.prices = append(c.prices, price)
}

func (c *Cart) Total() float64 {
	sum := 0.0
	for _, p := range c.prices {
		sum += p
	}
	return tax.WithTax(sum)
}

func Checkout(c *Cart) float64 {
	return c.Total()
}
