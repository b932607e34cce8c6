"""Small helpers."""

TAX_RATE = 0.2


def with_tax(amount: float) -> float:
    """The amount with its tax."""
    return amount * (1 + TAX_RATE)
