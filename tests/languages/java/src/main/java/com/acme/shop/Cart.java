package com.acme.shop;

import com.acme.tax.Tax;
import java.util.ArrayList;
import java.util.List;

/** A cart of prices. */
public class Cart {
    private static final int MAX_ITEMS = 10;
    private final List<Double> prices = new ArrayList<>();

    public void add(double price) {
        if (prices.size() >= MAX_ITEMS) {
            throw new IllegalStateException("too many items");
        }
        prices.add(price);
    }

    public double total() {
        double sum = 0;
        for (double p : prices) {
            sum += p;
        }
        return Tax.withTax(sum);
    }
}
