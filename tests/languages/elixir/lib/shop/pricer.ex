defmodule Shop.Pricer do
  @moduledoc "A behaviour: what a pricer must do."

  @doc """
  The price of an item after the pricer's rules: a callback is a chunk, its doc the contract's words (it declares).
  """
  @callback price(item :: map()) :: number()

  @doc "The prices of many items: a typespec's own `when` around its `::` names the callback all the same."
  @callback prices(items :: [item]) :: [number()] when item: map()

  @timeout 5_000

  @doc false
  def price(item), do: item.price
end
