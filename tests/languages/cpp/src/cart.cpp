#include <stdexcept>
#include <vector>

#include "shop/tax.hpp"

namespace shop {

static const int kMaxItems = 10;

/// A cart of prices.
class Cart {
 public:
  void add(double price) {
    if (prices_.size() >= kMaxItems) {
      throw std::length_error("too many items");
    }
    prices_.push_back(price);
  }

  double total() const;
  explicit operator bool() const;

 private:
  std::vector<double> prices_;
};

double Cart::total() const {
  double sum = 0;
  for (double p : prices_) sum += p;
  return with_tax(sum);
}

// A cart with prices in it is true: a conversion defined outside its class.
inline Cart::operator bool() const { return !prices_.empty(); }

// The cart's checksum: a function named in capitals after its type is no macro.
inline std::string SHA_256(const Cart &cart) {
  return digest(cart.total());
}

}  // namespace shop

// a conversion to a type of its own class's, written outside it (pugixml's `xml_node::operator
// xml_node::unspecified_bool_type() const`), and one inside a class
Cart::operator Cart::Summary() const { return Summary{prices_.size()}; }

struct Receipt {
  operator std::string() const { return text; }
  std::string text;
};
