import Foundation
import Tax
#if canImport(UIKit)
    import UIKit
#else
    import AppKit
#endif

enum CartError: Error {
    case tooMany
}

/// A cart of prices.
public class Cart {
    static let maxItems = 10
    private var prices: [Double] = []

    public func add(_ price: Double) throws {
        if prices.count >= Cart.maxItems {
            throw CartError.tooMany
        }
        prices.append(price)
    }

    public func total() -> Double {
        return withTax(prices.reduce(0, +))
    }

    /// The price at a position: a subscript, named so, not after the type it returns.
    public subscript(position: Int) -> Double {
        return prices[position]
    }

    /// Forgets every price.
    deinit {
        prices.removeAll()
    }
}

extension Cart {
    /// Whether the cart holds nothing (a computed property: a function by its name).
    public var isEmpty: Bool {
        return total() == 0
    }
}

extension Cart {
    /// The label a new cart shows: a value a closure computes once, a function by its name.
    public static let defaultLabel: String = {
        let owner = ProcessInfo.processInfo.environment["USER"] ?? "guest"
        return "Cart of \(owner)"
    }()

    /// A stored value is a statement of the file.
    static let maxItems = 10
}
