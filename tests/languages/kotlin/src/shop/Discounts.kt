package com.acme.shop

import com.acme.tax.withTax

/** Discounts, in what Kotlin 2.1 and annotated accessors allow. */
class Discounts(private val cart: Cart) {
    private var flags = 0

    /** The cart's total after tax. */
    val taxed: Double
        @Suppress("MagicNumber")
        get() = withTax(cart.total())

    /** The discount for a price, by its kind. */
    fun discount(price: Any, where: String?): Double = when (price) {
        is Double if price > LIMIT -> price / 10
        is Int if (
            price > 0 &&
                where != null
            ) -> 1.0
        else -> 0.0
    }

    /** Marks a flag as set. */
    fun mark(flag: Int) {
        val bit = 1 shl flag
        set = flags or bit
        where?.let { flags = it.length }
    }

    /** Whether a flag is set. */
    fun isMarked(flag: Int): Boolean = flags and (1 shl flag) != 0

    companion object {
        const val LIMIT = 100.0
    }
}
