#ifndef TAX_H
#define TAX_H

#define TAX_RATE 0.2

/* The amount with its tax. */
double with_tax(double amount);

#endif
