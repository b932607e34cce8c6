package com.acme.shop

import com.acme.tax.withTax

/** A cart of prices. */
class Cart {
    private val prices = mutableListOf<Double>()

    /** A cart holding one price already. */
    constructor(first: Double) {
        add(first)
    }

    fun add(price: Double) {
        if (prices.size >= MAX_ITEMS) {
            throw IllegalStateException("too many items")
        }
        prices.add(price)
    }

    fun total(): Double = withTax(prices.sum())

    /** The dearest price, found once: a property a delegate's block computes is a definition of its own. */
    val dearest: Double by lazy {
        val sorted = prices.sorted()
        sorted.last()
    }

    companion object {
        const val MAX_ITEMS = 10
    }
}

fun Cart.checkout(): Double = total()
