package tax

/** Rounds an amount to the currency's cents: a contract other code implements. */
interface Rounder {
    fun round(amount: Double): Double

    fun roundAll(amounts: List<Double>): List<Double> = amounts.map { round(it) }
}
