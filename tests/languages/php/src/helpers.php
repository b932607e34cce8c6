<?php

// A helper defined only where the application did not define its own: the guard's functions are the file's.
if (! function_exists('format_price')) {
    /**
     * A price as the shop shows it, two decimals and the currency.
     */
    function format_price(float $amount, string $currency = 'EUR'): string
    {
        return number_format($amount, 2) . ' ' . $currency;
    }
}
