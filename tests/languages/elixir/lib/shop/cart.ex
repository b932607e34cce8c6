defmodule Shop.Cart do
  @moduledoc "A cart of prices."
  alias Shop.Tax
  import Shop.Format

  @max_items 10

  def add(prices, price) do
    if length(prices) >= @max_items, do: raise(ArgumentError, "too many items")
    [price | prices]
  end

  @doc """
  The total of the prices, with tax, as money.
  """
  @spec total([number]) :: String.t()
  def total(prices) do
    money(Tax.with_tax(Enum.sum(prices)))
  end
end
