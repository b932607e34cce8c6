defmodule Shop.Tax do
  @rate 0.2

  # The amount with its tax.
  def with_tax(amount), do: amount * (1 + @rate)
end
