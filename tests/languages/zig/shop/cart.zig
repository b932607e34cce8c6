const std = @import("std");
const tax = @import("tax.zig");
const withTax = @import("tax.zig").withTax;
const Allocator = std.mem.Allocator;

pub const max_items = 10;

/// A cart of prices.
pub const Cart = struct {
    allocator: Allocator,
    prices: std.ArrayList(u32),

    pub fn init(allocator: Allocator) Cart {
        return Cart{ .allocator = allocator, .prices = std.ArrayList(u32).init(allocator) };
    }

    /// Adds a price; a full cart refuses it.
    pub fn add(self: *Cart, price: i64) !void {
        if (self.prices.items.len >= max_items) return error.CartFull;
        try self.prices.append(try tax.requirePrice(price));
    }

    pub fn total(self: *const Cart) u32 {
        var sum: u32 = 0;
        for (self.prices.items) |price| sum += withTax(price);
        return sum;
    }
};

/// Where a cart is in its life.
pub const Status = enum {
    open,
    paid,

    pub fn isFinal(self: Status) bool {
        return self == .paid;
    }
};

pub const Line = struct {
    price: u32,
    count: u32,
};

test "a cart totals its prices with tax" {
    var cart = Cart.init(std.testing.allocator);
    try cart.add(10);
    try std.testing.expectEqual(@as(u32, 12), cart.total());
}

const Receipt = @import("Receipt.zig");

pub fn checkout(price: u32) Receipt {
    return Receipt.of(price);
}

// The tests' own fixture beside them: named for the tests, test code (and so is what it holds).
const TestShop = struct {
    fn withPrices(prices: []const u32) Cart {
        var cart = Cart.init(std.testing.allocator);
        for (prices) |p| cart.add(p) catch unreachable;
        return cart;
    }
};
