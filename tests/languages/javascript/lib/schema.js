'use strict'

const Any = require('./any')

// An object of functions handed to a call is the class it makes: joi's types, a store's options.
module.exports = Any.extend({
  type: 'string',

  validate (value, { error }) {
    if (typeof value !== 'string') {
      return { value, errors: error('string.base') }
    }
  },

  rules: {
    // one function alone is the rule, named through it
    trim: {
      method () {
        return this.$_addRule('trim')
      }
    },

    email: {
      method (options = {}) {
        return this.$_addRule({ name: 'email', args: { options } })
      },
      validate (value, helpers) {
        return /@/.test(value) ? value : helpers.error('string.email')
      }
    }
  }
})
