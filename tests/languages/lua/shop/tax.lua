local M = {}

local RATE <const> = 0.2

-- The amount with its tax.
function M.with_tax(amount)
  return amount * (1 + RATE)
end

return M
