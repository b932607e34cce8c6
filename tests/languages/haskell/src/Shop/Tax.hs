module Shop.Tax (withTax) where

rate :: Double
rate = 0.2

-- | The amount with its tax.

withTax :: Double -> Double
{-# INLINE withTax #-}
withTax amount = amount * (1 + rate)
