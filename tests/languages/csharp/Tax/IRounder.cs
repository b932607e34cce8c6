namespace Acme.Tax
{
    /// <summary>Rounds an amount to the currency's cents: a contract other code implements.</summary>
    public interface IRounder
    {
        /// <summary>The amount, rounded (see <see cref="Rounding"/> {for the modes}).</summary>
        decimal Round(decimal amount);
    }
}
