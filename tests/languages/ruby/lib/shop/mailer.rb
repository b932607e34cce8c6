# frozen_string_literal: true

# A class defined only where its dependency is loaded.
if defined?(ActionMailer)
  class Shop::Mailer < ActionMailer::Base
    # Mails a cart's receipt.
    def receipt(cart)
      mail(body: cart.total.to_s)
    end
  end
end
