#import "Tax.h"

double WithTax(double amount) {
    return amount * (1 + TAX_RATE);
}
