import { withTax } from './util.js';

const hasStore = typeof localStorage !== 'undefined';

/** Pays for a cart where a browser keeps it (the module's one function, anonymous). */
export default hasStore && function (cart) {
  return withTax(cart.total());
}
