defmodule Shop.Tax do
  @rate 0.2

  # The amount with its tax.
  def with_tax(amount), do: amount * (1 + @rate)

  @doc "The tax of an amount: none on nothing."
  def tax(0), do: 0
  def tax(amount) when is_amount(amount), do: amount * @rate

  defguardp is_amount(value) when is_number(value) and value > 0
end
