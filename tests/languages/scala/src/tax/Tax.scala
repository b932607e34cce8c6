package acme.tax

object Tax {
  val Rate = 0.2

  /** The amount with its tax. */
  def withTax(amount: Double): Double = amount * (1 + Rate)

  /** Orders amounts from the largest. */
  implicit val largestFirst: Ordering[Double] = new Ordering[Double] {
    def compare(a: Double, b: Double): Int = java.lang.Double.compare(withTax(b), withTax(a))
  }
}
