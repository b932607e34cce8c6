package shop

/** How an option's text becomes a value. */
trait Reads[A] {
  def reads: String => A
}

object Reads {
  def reads[A](f: String => A): Reads[A] = new Reads[A] {
    val reads = f
  }

  // A value a factory makes from a block is a function by its name; a one-line one is a statement.
  implicit val quantityReads: Reads[Int] = reads { text =>
    val trimmed = text.trim
    trimmed.toInt
  }

  implicit val flagReads: Reads[Boolean] =
    reads {
      _.toLowerCase match {
        case "yes" => true
        case _     => false
      }
    }

  implicit val textReads: Reads[String] = reads { identity }
}
