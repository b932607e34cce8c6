#include "tax.h"

double with_tax(double amount) {
    return amount * (1 + TAX_RATE);
}
