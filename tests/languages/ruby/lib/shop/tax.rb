module Shop
  module Tax
    RATE = 0.2

    # The amount with its tax.
    def self.with_tax(amount)
      amount * (1 + RATE)
    end
  end
end
