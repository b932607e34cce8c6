<?php

namespace Acme\Shop;

/** Reads a receipt's fields as array keys (`$receipt['total']`). */
trait ArrayAccessToFields
{
    public function offsetGet($offset): mixed
    {
        return $this->{$offset};
    }
}

/** A paid cart: a class that uses a trait inherits its methods (an inherits edge, as for a base class). */
class Receipt
{
    use ArrayAccessToFields;

    public function __construct(private float $total)
    {
    }
}
