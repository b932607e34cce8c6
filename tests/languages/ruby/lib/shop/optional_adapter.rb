# frozen_string_literal: true

# An optional part of a gem, loaded when its dependency is: its classes are chunks all the same.
begin
  require "active_job"

  module Shop
    # Runs a checkout as a background job.
    class CheckoutJob
      def perform(cart_id)
        Checkout.new(cart_id).run
      end
    end
  end
rescue LoadError
  # no ActiveJob: no adapter
end
