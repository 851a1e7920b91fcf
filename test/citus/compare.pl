#!/usr/bin/perl
# compare.pl SCENARIO SINGLE CITUS: the rows two servers printed for the same
# queries (psql -A -t, fields separated by \x1f, records by \x1e; the first
# field labels the table or report a row comes from), compared label by
# label, rows in sorted order (test/snapshot.sql's callers sort).  Prints one
# line per label: "ok<TAB>description" or "not ok<TAB>description", then
# "#" lines saying what differs.
#
# Exactly first.  A label whose rows differ only in floating-point values,
# each within a relative 1e-12 of the other, is reported as equal with the
# number of such values and the largest relative difference: on a Citus
# cluster a sum may be added in another order (partial sums per shard,
# combined on the coordinator), which moves the last bits of a float8.
use strict;
use warnings;

my ($scenario, $fa, $fb) = @ARGV;
my $tol = 1e-12;

sub load {
    my $f = shift;
    open(my $h, '<:raw', $f) or die "compare.pl: $f: $!";
    local $/;
    my $t = <$h>;
    my %by;
    # records end in \x1e, the last of a result set in a newline
    for my $rec (split /\x1e|\n/, $t) {
        next if $rec =~ /^\s*$/;
        my @f = split /\x1f/, $rec, -1;
        push @{$by{$f[0]}}, $rec;
    }
    $by{$_} = [sort @{$by{$_}}] for keys %by;
    return \%by;
}

my $num = qr/^-?(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|Infinity|NaN)$/i;
my ($a, $b) = (load($fa), load($fb));
my %labels = map { $_ => 1 } (keys %$a, keys %$b);
for my $label (sort keys %labels) {
    my @x = @{$a->{$label} || []};
    my @y = @{$b->{$label} || []};
    my $what = "$scenario: $label";
    if (@x != @y) {
        print "not ok\t$what: " . scalar(@x) . " rows on the single server, " . scalar(@y) . " on Citus\n";
        next;
    }
    my ($close, $maxrel, @bad) = (0, 0);
    for my $i (0 .. $#x) {
        next if $x[$i] eq $y[$i];
        my @p = split /\x1f/, $x[$i], -1;
        my @q = split /\x1f/, $y[$i], -1;
        my $ok = @p == @q;
        for my $k (0 .. ($ok ? $#p : -1)) {
            next if $p[$k] eq $q[$k];
            if ($p[$k] =~ $num && $q[$k] =~ $num && $p[$k] !~ /inf|nan/i) {
                my $d = abs($p[$k] - $q[$k]);
                my $m = abs($p[$k]) > abs($q[$k]) ? abs($p[$k]) : abs($q[$k]);
                my $rel = $m > 0 ? $d / $m : 0;
                if ($rel <= $tol) { $close++; $maxrel = $rel if $rel > $maxrel; next; }
            }
            $ok = 0;
        }
        push @bad, $i unless $ok;
    }
    my $n = scalar(@x);
    if (@bad) {
        print "not ok\t$what: " . scalar(@bad) . " of $n rows differ\n";
        for my $i (@bad[0 .. ($#bad < 2 ? $#bad : 2)]) {
            (my $p = $x[$i]) =~ s/\x1f/|/g;
            (my $q = $y[$i]) =~ s/\x1f/|/g;
            print "#   single: $p\n#   citus:  $q\n";
        }
    } elsif ($close) {
        printf "ok\t%s: %d rows equal; %d float values differ in the last bits (largest relative difference %.1e, at most %.0e)\n",
               $what, $n, $close, $maxrel, $tol;
    } else {
        print "ok\t$what: $n rows identical\n";
    }
}
