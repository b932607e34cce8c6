package com.acme.tax;

import java.util.Comparator;

public final class Tax {
    public static final double RATE = 0.2;

    /** The amount with its tax. */
    public static double withTax(double amount) {
        return amount * (1 + RATE);
    }

    /** Orders amounts from the largest. */
    public static final Comparator<Double> LARGEST_FIRST = new Comparator<Double>() {
        @Override
        public int compare(Double a, Double b) {
            return Double.compare(withTax(b), withTax(a));
        }
    };
}
