#include "shop/tax.hpp"

namespace shop {

// The one registry, a reference to it returned: a `T &f()` definition.
registry &registry::instance() {
  static registry only;
  return only;
}

// An export macro between the type and the name (spdlog's `SPDLOG_INLINE`),
// and one that opens a block (`SHOP_TRY {`).
void SHOP_INLINE registry::flush_all() {
  SHOP_TRY {
    for (auto &cart : carts_) {
      cart.flush();
    }
  }
  SHOP_CATCH_ALL
}

const std::string &registry::name() const { return name_; }

}  // namespace shop
