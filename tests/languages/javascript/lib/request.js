// What a request says about itself: the module is an object of accessors and methods.
const { withTax } = require('./util')

module.exports = {
  /** The host the client asked for, behind a proxy too. */
  get host () {
    return this.proxy ? this.get('X-Forwarded-Host') : this.get('Host')
  },

  priceOf (item) {
    return withTax(item.price)
  },

  /**
   * Sends the body, as JSON when it is an object: a linter's switch between this doc and its method is no doc.
   */
  // eslint-disable-next-line complexity
  send (body) {
    return typeof body === 'object' ? JSON.stringify(body) : body
  }
}
