const TAX_RATE = 0.2;

/** The amount with its tax. */
function withTax(amount) {
  return amount * (1 + TAX_RATE);
}

/** Prices as the shop shows them. */
const prices = {
  shown(amount) {
    return withTax(amount).toFixed(2);
  },
  free: (amount) => amount === 0,
  label: "EUR",
};

/** The price of nothing, said once the process ends. */
process.on("exit", function sayFree() {
  prices.shown(0);
});

/** Rounds an amount to cents; aliased as `prices.round`. */
prices.cents = prices.round = function cents(amount) {
  return Math.round(amount * 100) / 100;
};

// Rounds down to whole units: a `//` run directly above a definition documents it,
// a bundler's annotation below it (no doc) left out.
// @__NO_SIDE_EFFECTS__
function floor(amount) {
  return Math.floor(amount);
}

module.exports = { withTax, prices, floor };
