defmodule Shop.Format do
  def money(amount), do: "$#{amount}"
end
