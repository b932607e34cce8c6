defmodule Shop.Cart do
  alias Shop.Tax

  @max_items 10

  def add(prices, price) do
    if length(prices) >= @max_items, do: raise(ArgumentError, "too many items")
    [price | prices]
  end

  def total(prices) do
    Tax.with_tax(Enum.sum(prices))
  end
end
