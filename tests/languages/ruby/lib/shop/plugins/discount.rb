# frozen-string-literal: true

class Shop
  module Plugins
    # The discount plugin takes a share off every line of a cart
    # when a coupon code is given:
    #
    #   plugin :discount
    module Discount
      module CartMethods
        # The cart's total with the coupon's share taken off.
        def discounted_total(coupon)
          total * (1 - coupon.share)
        end
      end
    end

    register_plugin(:discount, Discount)
  end
end
