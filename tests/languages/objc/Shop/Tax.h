#import <Foundation/Foundation.h>

#define TAX_RATE 0.2

/// The amount with its tax.
double WithTax(double amount);
