package Shop::Cart;
use strict;
use warnings;
use Shop::Tax qw(with_tax);

use constant MAX_ITEMS => 10;

sub new {
    my ($class) = @_;
    return bless { prices => [] }, $class;
}

# Puts a price in the cart.
sub add {
    my ($self, $price) = @_;
    die "too many items" if @{ $self->{prices} } >= MAX_ITEMS;
    push @{ $self->{prices} }, $price;
}

sub total {
    my ($self) = @_;
    my $sum = 0;
    $sum += $_ for @{ $self->{prices} };
    return with_tax($sum);
}

sub checkout {
    my ($self) = @_;
    return $self->total();
}

1;
