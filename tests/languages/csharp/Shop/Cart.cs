using System;
using System.Collections.Generic;
using Acme.Tax;

namespace Acme.Shop
{
    /// <summary>A cart of prices.</summary>
    public class Cart
    {
        private const int MaxItems = 10;
        private readonly List<double> prices = new List<double>();

        public void Add(double price)
        {
            if (prices.Count >= MaxItems)
            {
                throw new InvalidOperationException("too many items");
            }
            prices.Add(price);
        }

        public double Total()
        {
            double sum = 0;
            foreach (var p in prices) sum += p;
            return Taxes.WithTax(sum);
        }

#if DEBUG
        /// <summary>Every price, for the debugger.</summary>
        public string Dump()
        {
            return string.Join(", ", prices);
        }
#endif
    }
}
