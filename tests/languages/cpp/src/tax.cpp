#include "shop/tax.hpp"

namespace shop {

double with_tax(double amount) { return amount * (1 + kTaxRate); }

}  // namespace shop
