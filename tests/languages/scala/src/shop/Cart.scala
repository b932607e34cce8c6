package acme.shop

import acme.tax.Tax

/** A cart of prices. */
class Cart {
  private val MaxItems = 10
  private var prices = List.empty[Double]

  def add(price: Double): Unit = {
    if (prices.size >= MaxItems) throw new IllegalStateException("too many items")
    prices = price :: prices
  }

  def total: Double = Tax.withTax(prices.sum)
}
