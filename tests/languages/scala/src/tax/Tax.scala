package acme.tax

object Tax {
  val Rate = 0.2

  /** The amount with its tax. */
  def withTax(amount: Double): Double = amount * (1 + Rate)
}
