package acme.shop

import acme.tax.Tax

/** Prices in Scala 3: extension methods and givens. */
object Pricing:
  extension (price: Double)
    def taxed: Double = Tax.withTax(price)
    def discounted(off: Double): Double =
      price - off

  /** Larger discounts first. */
  given byDiscount: Ordering[Double] with
    def compare(a: Double, b: Double): Int = b.compare(a)

  given Ordering[Cart] with
    def compare(a: Cart, b: Cart): Int = a.total.compare(b.total)

  /** The cart's total, rounded. */
  def rounded(cart: Cart): Long =
    math.round(cart.total)

extension (cart: Cart)
  def isEmpty: Boolean = cart.total == 0

/** Discounts joined: an operator of colons keeps its name. */
extension (cart: => Cart)
  def :::(other: Cart): Double = cart.total + other.total
