public let taxRate = 0.2

/// The amount with its tax.
public func withTax(_ amount: Double) -> Double {
    return amount * (1 + taxRate)
}
