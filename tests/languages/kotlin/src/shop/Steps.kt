package com.acme.shop

/** The steps a checkout runs, each a property holding its lambda. */
object Steps {
    /** Charges the cart: a generic call's trailing lambda. */
    val CHARGE = Step<Cart> { cart ->
        val total = cart.total()
        Checkout.pay(cart, total)
    }

    /** The first step, computed by a getter's block. */
    val first: Step<Cart>
        get() {
            return CHARGE
        }

    val none = 0 < 1

    /** Whether the checkout is still open: a local named as a modifier starts a statement. */
    fun isOpen(cart: Cart): Boolean {
        val open: Boolean
        synchronized(cart) {
            open = cart.total() > 0
        }
        return open
    }

    /** The step after this one. */
    fun next(): Step<Cart> = CHARGE
}
