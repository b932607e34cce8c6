import 'tax.dart';

/// A cart of prices.
class Cart {
  static const maxItems = 10;
  final List<double> prices = [];

  Cart();

  /// A cart of one price: a factory constructor, by its own name.
  factory Cart.single(double price) {
    return Cart()..add(price);
  }

  /// An empty cart kept aside: a named constructor.
  Cart._spare() {
    prices.clear();
  }

  void add(double price) {
    if (prices.length >= maxItems) {
      throw StateError('too many items');
    }
    prices.add(price);
  }

  double total() {
    return withTax(prices.fold(0, (a, b) => a + b));
  }

  /// Carts of the same total are equal.
  @override
  bool operator ==(Object other) => other is Cart && other.total() == total();
}
