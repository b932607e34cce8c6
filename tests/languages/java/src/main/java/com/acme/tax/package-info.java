/*
 * Copyright (C) 2026 Acme. Licensed under the Apache License, Version 2.0.
 */

/** Taxes: rates and rounding. */
package com.acme.tax;
