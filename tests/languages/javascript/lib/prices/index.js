'use strict';

// A folder's entry file: its module is the folder's name, what `require('./prices')` calls it.
module.exports = {
  /** A price rounded to cents. */
  rounded(amount) {
    return Math.round(amount * 100) / 100;
  },
};
