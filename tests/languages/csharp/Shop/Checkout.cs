namespace Acme.Shop;

/// <summary>A file-scoped namespace names the file's package: it is no piece of its own.</summary>
public class Checkout
{
    public double Pay(Cart cart) => cart.Total();
}
