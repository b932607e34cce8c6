import 'tax.dart';

/// A cart of prices.
class Cart {
  static const maxItems = 10;
  final List<double> prices = [];

  void add(double price) {
    if (prices.length >= maxItems) {
      throw StateError('too many items');
    }
    prices.add(price);
  }

  double total() {
    return withTax(prices.fold(0, (a, b) => a + b));
  }
}
