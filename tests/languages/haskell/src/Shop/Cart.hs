module Shop.Cart where

import Shop.Tax (withTax)

-- | A cart of prices.
newtype Cart = Cart [Double]

add :: Double -> Cart -> Cart
add price (Cart prices)
  | length prices >= 10 = error "too many items"
  | otherwise = Cart (price : prices)

total :: Cart -> Double
total (Cart prices) = withTax (sum prices)

count (Cart []) = 0
count (Cart (_ : rest)) = 1 + count (Cart rest)
