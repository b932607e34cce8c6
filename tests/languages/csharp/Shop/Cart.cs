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
        private double discount;

        /// <summary>How many prices it holds (a field of the cart: no chunk).</summary>
        public int Count => prices.Count;

        public string Owner { get; set; } = "";

        /// <summary>The share taken off the total, between 0 and 1.</summary>
        public double Discount
        {
            get => discount;
            set
            {
                if (value < 0 || value > 1) throw new ArgumentOutOfRangeException(nameof(value));
                discount = value;
            }
        }

        public double this[int index]
        {
            get { return prices[index]; }
        }

        /// <summary>The prices from a span where the runtime has spans: two signatures over one body.</summary>
#if FEATURE_SPAN
        public void AddAll(ReadOnlySpan<double> more)
#else
        public void AddAll(double[] more)
#endif
        {
            foreach (var p in more) Add(p);
        }

        public static Cart operator +(Cart a, Cart b)
        {
            var merged = new Cart();
            merged.prices.AddRange(a.prices);
            merged.prices.AddRange(b.prices);
            return merged;
        }

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
