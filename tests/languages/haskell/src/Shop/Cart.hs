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

-- | A cart shows its total: the instance's equations are the cart's.
instance Show Cart where
  show cart = "total " ++ show (total cart)

-- | Carts joined: every price of both.
(.+.) :: Cart -> Cart -> Cart
Cart [] .+. other = other  -- nothing to add
Cart (p : ps) .+. other = add p (Cart ps .+. other)
