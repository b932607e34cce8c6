package com.acme.shop

/** Checks a cart out; made by its builder only. */
@OptIn(ShopInternal::class)
@ShopDsl
open class Checkout protected constructor() {
    fun pay(cart: Cart): Double = cart.total()
}

/** The time of a checkout, one per platform. */
@ShopInternal
expect object Clock {
    fun now(): Long
}
