const taxRate = 0.2;

/// The amount with its tax.
double withTax(double amount) {
  return amount * (1 + taxRate);
}
