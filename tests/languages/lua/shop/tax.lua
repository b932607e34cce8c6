--- Tax rules of the shop: the rate and how amounts are rounded.

local M = {}

local RATE <const> = 0.2

-- The amount with its tax.
function M.with_tax(amount)
  return M.round(amount * (1 + RATE))
end

--- Rounded to cents.
M.round = function(amount)
  return math.floor(amount * 100 + 0.5) / 100
end

-- Rates other than the standard one.
M.rules = {
  reduced = function(amount)
    return M.round(amount * 1.1)
  end,
  label = "VAT",
}

return M
