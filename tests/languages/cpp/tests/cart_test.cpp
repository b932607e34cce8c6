#include <gtest/gtest.h>

#include "shop/tax.hpp"

// GoogleTest's tests are named by their suite and test, as --gtest_filter names them.
TEST(CartTest, AddsAPrice) {
  shop::Cart cart;
  cart.add(2.0);
  EXPECT_EQ(cart.total(), 2.4);
}

TEST_F(CartFixture, RejectsTooManyItems) {
  EXPECT_THROW(fill(11), std::length_error);
}
