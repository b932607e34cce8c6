defmodule Mix.Tasks.Shop.Report do
  use Mix.Task
  require Logger

  @shortdoc "Prints the sales report"
  @switches [days: :integer]
  @aliases [d: :days]

  @moduledoc """
  Prints the shop's sales report for the last days.
  """

  @doc ~S"""
  Runs the report with the command line's `--days`.
  """
  def run(args) do
    {opts, _} = OptionParser.parse!(args, strict: @switches)
    IO.puts(format_rows(Keyword.get(opts, :days, 7)))
  end

  # Formats the rows as a text table:
  #
  #     | day | sales |
  @doc false
  @spec format_rows(integer) :: String.t()
  def format_rows(days) do
    Enum.map_join(1..days, "\n", fn day -> "| #{day} | 0 |" end)
  end
end
