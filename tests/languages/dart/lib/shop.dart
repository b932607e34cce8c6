/// The shop: its cart and its tax.
library shop;

export 'cart.dart' show Cart;
import 'tax.dart';

const shopName = 'Acme';
