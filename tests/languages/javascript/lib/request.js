// What a request says about itself: the module is an object of accessors and methods.
const { withTax } = require('./util')

module.exports = {
  /** The host the client asked for, behind a proxy too. */
  get host () {
    return this.proxy ? this.get('X-Forwarded-Host') : this.get('Host')
  },

  priceOf (item) {
    return withTax(item.price)
  }
}
