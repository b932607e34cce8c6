from shop.util import with_tax

MAX_ITEMS = 10


class Cart:
    """A cart of prices."""

    def __init__(self) -> None:
        self.prices: list[float] = []

    def add(self, price: float) -> None:
        if len(self.prices) >= MAX_ITEMS:
            raise ValueError("too many items")
        self.prices.append(price)

    def total(self) -> float:
        return with_tax(sum(self.prices))


def checkout(cart: Cart) -> float:
    return cart.total()
