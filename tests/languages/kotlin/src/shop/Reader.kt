package shop

/** Reads a cart back: ktfmt writes a marked primary constructor on the line below its class's name. */
public abstract class Reader {
  /** The names a reader looks for, found once. */
  public class Options
  private constructor(
    internal val names: Array<String>,
  ) {
    public fun names(): List<String> = names.toList()
  }

  private var depth: Int = 0

  /** A secondary constructor after its modifiers is a constructor, not `modifiers`. */
  protected constructor(copyFrom: Reader) {
    depth = copyFrom.depth
  }

  public abstract fun nextPrice(): Double
}
