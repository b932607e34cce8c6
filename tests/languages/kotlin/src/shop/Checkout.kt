package com.acme.shop

/** Checks a cart out; made by its builder only. */
@OptIn(ShopInternal::class)
@ShopDsl
open class Checkout protected constructor() {
    fun pay(cart: Cart): Double = cart.total()

    /** The receipt's line: a multi-dollar string, whose `$` is no template (Kotlin 2.2). */
    fun receipt(cart: Cart): String = $$"paid $${cart.total()} in $EUR"
}

/** The time of a checkout, one per platform. */
@ShopInternal
expect object Clock {
    fun now(): Long
}
