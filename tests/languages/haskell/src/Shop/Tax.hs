--------------------------------------------------------------------------------
-- | Tax rules of the shop: the rate, and how amounts are rounded.

{-# LANGUAGE CPP #-}
module Shop.Tax (withTax) where

rate :: Double
rate = 0.2

-- | The amount with its tax.

withTax :: Double -> Double
{-# INLINE withTax #-}
withTax amount = amount * (1 + rate)

-- | Rounded to cents, unless the build keeps every digit (CPP).
rounded :: Double -> Double
#ifdef EXACT
rounded x = x
#else
rounded x = fromIntegral (round (x * 100)) / 100
#endif

-- | A rule that turns an amount into its taxed amount: a synonym its Haddock describes is a type of its own.
type Rule = Double -> Double

type Cents = Int
