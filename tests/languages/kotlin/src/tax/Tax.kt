package com.acme.tax

const val RATE = 0.2

/** The amount with its tax. */
fun withTax(amount: Double): Double = amount * (1 + RATE)
