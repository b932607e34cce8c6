#pragma once

namespace shop {

constexpr double kTaxRate = 0.2;

/// The amount with its tax.
double with_tax(double amount);

}  // namespace shop
