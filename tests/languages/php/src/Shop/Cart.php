<?php

namespace Acme\Shop;

use Acme\Tax\Taxes;

/** A cart of prices. */
class Cart
{
    const MAX_ITEMS = 10;
    private array $prices = [];

    public function add(float $price): void
    {
        if (count($this->prices) >= self::MAX_ITEMS) {
            throw new \LengthException("too many items");
        }
        $this->prices[] = $price;
    }

    public function total(): float
    {
        return Taxes::withTax(array_sum($this->prices));
    }
}
