const TAX_RATE = 0.2;

/** The amount with its tax. */
function withTax(amount) {
  return amount * (1 + TAX_RATE);
}

module.exports = { withTax };
