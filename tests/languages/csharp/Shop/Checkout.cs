namespace Acme.Shop;

/// <summary>A file-scoped namespace names the file's package: it is no piece of its own.</summary>
public class Checkout
{
    public double Pay(Cart cart) => cart.Total();

    /// <summary>A finalizer is `~Checkout`, not one more constructor.</summary>
    ~Checkout()
    {
        System.Console.WriteLine("checkout closed");
    }
}

/// <summary>C# 14's extension block: its members are the static class's.</summary>
public static class CartExtensions
{
    extension(Cart cart)
    {
        /// <summary>The total a receipt shows.</summary>
        public string Receipt() => $"total {cart.Total()}";
    }
}
