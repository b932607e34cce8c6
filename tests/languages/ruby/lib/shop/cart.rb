require_relative "tax"

module Shop
  # A cart of prices.
  class Cart
    MAX_ITEMS = 10

    def initialize
      @prices = []
    end

    def add(price)
      raise ArgumentError, "too many items" if @prices.size >= MAX_ITEMS
      @prices << price
    end

    def total
      Tax.with_tax(@prices.sum)
    end
  end
end
