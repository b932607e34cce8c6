# compiled only where its optional dependency is installed
if Code.ensure_loaded?(Jason) do
  defmodule Shop.Receipt do
    alias Shop.Format

    def to_json(total), do: Jason.encode!(%{total: Format.money(total)})
  end
end
