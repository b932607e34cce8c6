package cart

// emptyHandler answers a cart with no items: a function kept in a variable.
var emptyHandler = func(c *Cart) error {
	return c.Reset()
}

var (
	maxItems = 10
	fallback = func() int { return maxItems }
)

/*
CheckoutWithConfig checks the cart out with a configuration: a block comment
above a function documents it.

	c.CheckoutWithConfig(Config{})
*/
func CheckoutWithConfig(c *Cart) error {
	if len(c.Items) == 0 {
		return emptyHandler(c)
	}
	return nil
}
