require_relative "tax"

module Shop
  # A cart of prices.
  class Cart
    MAX_ITEMS = 10

    class << self
      # A cart holding the given prices.
      def of(*prices)
        cart = new
        prices.each { |price| cart.add(price) }
        cart
      end
    end

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
