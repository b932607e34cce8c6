local tax = require("shop.tax")

local Cart = {}
Cart.__index = Cart

local MAX_ITEMS <const> = 10

function Cart.new()
  return setmetatable({ prices = {} }, Cart)
end

function Cart:add(price)
  if #self.prices >= MAX_ITEMS then
    error("too many items")
  end
  table.insert(self.prices, price)
end

function Cart:total()
  local sum = 0
  for _, p in ipairs(self.prices) do sum = sum + p end
  return tax.with_tax(sum)
end

return Cart
