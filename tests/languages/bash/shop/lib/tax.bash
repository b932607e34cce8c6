#!/usr/bin/env bash
# Tax rules for the shop.

readonly TAX_RATE=20

# The price with its tax added.
with_tax() {
  local price=$1
  echo $(( price + price * TAX_RATE / 100 ))
}

function require_price {
  if [ -z "$1" ]; then
    echo "no price" >&2
    exit 1
  fi
}
