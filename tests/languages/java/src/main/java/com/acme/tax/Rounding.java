package com.acme.tax;

/** How an amount is rounded. */
public enum Rounding {
    UP {
        @Override
        public double apply(double amount) {
            return Math.ceil(amount);
        }
    },
    DOWN {
        @Override
        public double apply(double amount) {
            return Math.floor(amount);
        }
    };

    public abstract double apply(double amount);
}
