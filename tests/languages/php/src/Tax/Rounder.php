<?php

namespace Acme\Tax;

/**
 * Rounds an amount to the currency's cents: a contract other code implements.
 */
interface Rounder
{
    #[Pure]
    public function round(float $amount, array $options = []): float;
}
