namespace Acme.Shop
{
    // A partial class that only holds a nested type names it: no whole-file chunk named Cart here.
    public partial class Cart
    {
        /// <summary>One line of a cart: a price and how many.</summary>
        public class Line
        {
            public double Total(double price, int quantity)
            {
                return price * quantity;
            }
        }
    }
}
