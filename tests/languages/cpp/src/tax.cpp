#include "shop/tax.hpp"

SHOP_PRAGMA(diagnostic ignored "-Wfloat-equal")

namespace shop {

double with_tax(double amount) { return amount * (1 + kTaxRate); }

double rounded(double amount) {
  return round_to(amount,
                  SHOP_CENTS(2));
}

// a template's header, then its export macro on the same line (CLI11's `template <class CharT> CLI11_INLINE`)
template <class T> SHOP_INLINE T taxed(T amount) { return with_tax(amount); }

}  // namespace shop
