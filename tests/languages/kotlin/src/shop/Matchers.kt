package shop

/** Matchers of the cart's prices; ktlint writes a type list with a trailing comma. */
class Matchers {
    inline fun <
        reified T : (A1) -> R,
        R,
        A1,
    > invoke(arg1: A1): T? = null

    fun priceAbove(limit: Double): (Double) -> Boolean = { it > limit }
}
