#pragma once

namespace shop {

constexpr double kTaxRate = 0.2;

/// The amount with its tax.
double with_tax(double amount);

/// Rounds to cents (exported: the macro stands between `class` and the name).
class SHOP_API Rounder final : public Policy {
 public:
  double round(double amount) const { return amount; }
};

/// Hears of every total; by default hears nothing: an empty body is a no-op, it declares (sinks below code).
class TotalListener {
 public:
  virtual void on_total(double amount) {}
};

struct SHOP_API Money {
  double value;
};

}  // namespace shop
