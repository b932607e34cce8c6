namespace Acme.Tax
{
    public static class Taxes
    {
        public const double Rate = 0.2;

        /// <summary>The amount with its tax.</summary>
        public static double WithTax(double amount)
        {
            return amount * (1 + Rate);
        }
    }
}
