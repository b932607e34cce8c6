local tax = require("shop.tax")

-- The module is the table it returns: its functions are the receipt's.
return {
  currency = "EUR",
  line = function(name, price)
    return name .. ": " .. tax.with_tax(price)
  end,
}
