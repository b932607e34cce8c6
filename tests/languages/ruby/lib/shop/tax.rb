module Shop
  module Tax
    RATE = 0.2

    # The amount with its tax.
    def self.with_tax(amount)
      amount * (1 + RATE)
    end

    # A concern's methods are in the blocks it hands (`included do`, `class_methods do`).
    included do
      # The tax a price carries.
      def tax_of(price)
        Tax.with_tax(price) - price
      end
    end
  end
end
