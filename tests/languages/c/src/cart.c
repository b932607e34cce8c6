#include <stdlib.h>
#include "tax.h"

#define MAX_ITEMS 10

/* A cart of prices. */
struct cart {
    double prices[MAX_ITEMS];
    int count;
};

void cart_add(struct cart *cart, double price) {
    if (cart->count >= MAX_ITEMS) {
        abort();
    }
    cart->prices[cart->count++] = price;
}

double cart_total(const struct cart *cart) {
    double sum = 0;
    for (int i = 0; i < cart->count; i++) {
        sum += cart->prices[i];
    }
    return with_tax(sum);
}
