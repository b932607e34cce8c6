package com.acme.shop;

/** Listens to a cart; override what matters. Its methods do nothing: they declare. */
public class CartListenerAdapter {
    /** Called when an item is added. */
    public void itemAdded(double price) {
        // noop
    }

    public void cleared() { /* no-op */ }

    /** A getter by its name that only returns its field. */
    public int getCount() {
        return count;
    }

    private int count;
}
