package Shop::Tax;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(with_tax);

use constant RATE => 0.2;

# The amount with its tax.
sub with_tax {
    my ($amount) = @_;
    return $amount * (1 + RATE);
}

1;
