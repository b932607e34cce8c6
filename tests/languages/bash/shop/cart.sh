#!/usr/bin/env bash
# A cart of prices, totalled with tax.
source "$(dirname "$0")/lib/tax.bash"

MAX_ITEMS=10
ITEMS=()

# Add a price to the cart; a full cart refuses it.
cart_add() {
  require_price "$1"
  if [ "${#ITEMS[@]}" -ge "$MAX_ITEMS" ]; then
    return 1
  fi
  ITEMS+=("$1")
}

cart_total() {
  local sum=0
  for price in "${ITEMS[@]}"; do
    sum=$(( sum + $(with_tax "$price") ))
  done
  printf '%s\n' "$sum"
}

cart_add 5
cart_total
