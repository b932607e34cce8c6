# A class that holds only types and constants is their namespace, not a chunk of the whole file (grape's
# `class Router` reopened around `class GreedyRoute` in router/greedy_route.rb).
class Shop
  # Namespaces inside a type: `Shop::Printing::Receipt`.
  module Printing
    # A printed receipt.
    class Receipt
      def print(cart)
        Line.new(cart.total, "total").to_s
      end
    end

    # A line of a receipt: a type a call's block builds.
    Line = Struct.new(:amount, :label) do
      def to_s
        "#{label}: #{amount}"
      end
    end

    PrintError = Class.new(StandardError)
  end
end
