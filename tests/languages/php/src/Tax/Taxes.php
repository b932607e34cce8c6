<?php

namespace Acme\Tax;

class Taxes
{
    public const RATE = 0.2;

    /** The amount with its tax. */
    public static function withTax(float $amount): float
    {
        return $amount * (1 + self::RATE);
    }
}
