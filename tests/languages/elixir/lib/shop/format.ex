defmodule Shop.Format do
  def money(amount), do: "$#{amount}"

  # handed to the tax module whole: it declares, the work is Shop.Tax's
  defdelegate taxed(amount), to: Shop.Tax, as: :with_tax
end

# a protocol's implementation for a type: Elixir names its module after both
defimpl String.Chars, for: Shop.Format do
  def to_string(_format), do: Shop.Format.money(0)
end
