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

  /// A cart of a price twice: a named constructor with no body, by its own name.
  Cart.twice(double price) : this.ofAll([price, price]);

  Cart.ofAll(List<double> all) {
    prices.addAll(all);
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
