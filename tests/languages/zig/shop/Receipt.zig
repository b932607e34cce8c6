//! A receipt: the file is the struct, its fields at the top level.
const tax = @import("tax.zig");

const Receipt = @This();

total: u32,

/// A receipt for a price, its tax added.
pub fn of(price: u32) Receipt {
    return .{ .total = taxed(price) };
}

fn taxed(price: u32) u32 {
    return tax.withTax(price);
}

test "a receipt adds the tax" {
    _ = of(100);
}
