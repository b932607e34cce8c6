#include "shop/tax.hpp"

SHOP_PRAGMA(diagnostic ignored "-Wfloat-equal")

namespace shop {

double with_tax(double amount) { return amount * (1 + kTaxRate); }

double rounded(double amount) {
  return round_to(amount,
                  SHOP_CENTS(2));
}

}  // namespace shop
