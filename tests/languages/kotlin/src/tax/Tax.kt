package com.acme.tax

const val RATE = 0.2

/** The amount with its tax. */
fun withTax(amount: Double): Double = amount * (1 + RATE)

/** Orders amounts from the largest. */
val largestFirst = object : Comparator<Double> {
    override fun compare(a: Double, b: Double): Int = withTax(b).compareTo(withTax(a))
}

/** Every amount of a list with its tax, rounded to cents. */
val withTaxes = transformer("tax") { amounts ->
    amounts.map { withTax(it) }
}
