'use strict';

// An anonymous function the module is: named by its file.
module.exports = (amount, rate) => {
  return amount * (1 - rate);
};
