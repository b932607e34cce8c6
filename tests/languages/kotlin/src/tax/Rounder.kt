package tax

/** Rounds an amount to the currency's cents: a contract other code implements. */
interface Rounder {
    fun round(amount: Double): Double

    fun roundAll(amounts: List<Double>): List<Double> = amounts.map { round(it) }
}

/** Rounds down, the rest delegated: its members are its own chunks (the grammar read `by cents { ... }` as a call). */
@PublishedApi
internal class FloorRounder<T>(
    private val cents: Rounder,
) : Rounder by cents {

    private val calls = mutableListOf<Double>()

    override fun round(amount: Double): Double {
        calls.add(amount)
        return kotlin.math.floor(amount)
    }
}
