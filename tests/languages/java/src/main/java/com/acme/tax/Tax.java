package com.acme.tax;

public final class Tax {
    public static final double RATE = 0.2;

    /** The amount with its tax. */
    public static double withTax(double amount) {
        return amount * (1 + RATE);
    }
}
