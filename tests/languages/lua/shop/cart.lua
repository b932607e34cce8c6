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

-- A block keeps its helper to itself; the functions in it are the module's all the same.
do
  local function count(prices)
    return #prices
  end

  function Cart:size()
    return count(self.prices)
  end
end

if utf8 then
  -- The cart as text, where the runtime has utf8.
  function Cart:describe()
    return utf8.char(0x1F6D2) .. " " .. self:size()
  end
end

return Cart
