const { EventEmitter } = require('events')

// The module is a class expression: its methods are the class's.
module.exports = class Store extends EventEmitter {
  open (name) {
    this.emit('open', name)
  }
}
