#include "tax.h"

double with_tax(double amount) {
    return amount * (1 + TAX_RATE);
}

/* The rate as a library exports it: the macro wraps the return type, as cJSON's
   `CJSON_PUBLIC(cJSON *) cJSON_Parse(...)` does; the grammar read a call. */
TAX_PUBLIC(double) tax_rate(void)
{
    return TAX_RATE;
}

TAX_PUBLIC(const char *) tax_name(void)
{
    return with_tax(0) > 0 ? "VAT" : "none";
}
