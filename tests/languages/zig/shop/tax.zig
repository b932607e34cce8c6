//! Tax rules for the shop.
const std = @import("std");

pub const rate: u32 = 20;

/// The price with its tax added.
pub fn withTax(price: u32) u32 {
    return price + price * rate / 100;
}

pub fn requirePrice(price: i64) !u32 {
    if (price < 0) return error.NegativePrice;
    return @intCast(price);
}
