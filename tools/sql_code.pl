#!/usr/bin/perl
# Prints the part of the extension's SQL pieces that an update re-creates: every
# function, procedure, aggregate, view and (non-constraint) trigger as
# CREATE OR REPLACE, every COMMENT, GRANT, REVOKE and DO block, in the order of
# the pieces.  Tables, types, indexes, statistics, policies, constraint
# triggers and data are left out: they are created once, by the install script
# or by the hand-written data-change file of an update (extension/updates/).
# The Makefile builds each upgrade script as that file followed by this output
# (CONTRIBUTING.md#upgrades).
#
# Usage: perl tools/sql_code.pl piece.sql ... > code.sql
#
# The statements are split as psql splits them: at a semicolon outside quotes,
# dollar quotes, comments and SQL-standard BEGIN ATOMIC ... END bodies.
use strict;
use warnings;

my $text = '';
for my $f (@ARGV) {
    open my $fh, '<', $f or die "$f: $!\n";
    local $/;
    $text .= <$fh>;
    $text .= "\n" unless $text =~ /\n\z/;
    close $fh;
}

my @statements;
my ($start, $i, $n, $depth) = (0, 0, length $text, 0);
my $prev_word = '';
while ($i < $n) {
    my $c = substr $text, $i, 1;
    if ($c eq '-' && substr($text, $i, 2) eq '--') {
        my $e = index $text, "\n", $i;
        $i = $e < 0 ? $n : $e + 1;
    } elsif ($c eq '/' && substr($text, $i, 2) eq '/*') {
        my $level = 0;
        while ($i < $n) {
            if (substr($text, $i, 2) eq '/*') { $level++; $i += 2; }
            elsif (substr($text, $i, 2) eq '*/') { $level--; $i += 2; last if $level == 0; }
            else { $i++; }
        }
    } elsif ($c eq "'") {
        # E'...' strings take backslash escapes
        my $escapes = $i > 0 && substr($text, $i - 1, 1) =~ /[Ee]/
            && ($i < 2 || substr($text, $i - 2, 1) !~ /\w/);
        $i++;
        while ($i < $n) {
            my $d = substr $text, $i, 1;
            if ($escapes && $d eq '\\') { $i += 2; next; }
            if ($d eq "'") {
                if (substr($text, $i + 1, 1) eq "'") { $i += 2; next; }
                $i++; last;
            }
            $i++;
        }
    } elsif ($c eq '"') {
        my $e = index $text, '"', $i + 1;
        die "unterminated quoted identifier\n" if $e < 0;
        $i = $e + 1;
    } elsif ($c eq '$' && ($i == 0 || substr($text, $i - 1, 1) !~ /\w/)
             && substr($text, $i) =~ /\A(\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$)/) {
        my $tag = $1;
        my $e = index $text, $tag, $i + length $tag;
        die "unterminated dollar quote $tag\n" if $e < 0;
        $i = $e + length $tag;
    } elsif ($c eq '\\' && ($i == 0 || substr($text, $i - 1, 1) eq "\n")) {
        # a psql meta-command (head.sql's \echo ... \quit): a line of its own
        my $e = index $text, "\n", $i;
        $e = $n - 1 if $e < 0;
        push @statements, substr($text, $start, $e + 1 - $start);
        $i = $start = $e + 1;
    } elsif ($c =~ /[A-Za-z_]/) {
        substr($text, $i) =~ /\A(\w+)/;
        my $w = uc $1;
        if ($w eq 'ATOMIC' && $prev_word eq 'BEGIN') { $depth++; }
        elsif ($w eq 'CASE' && $depth > 0) { $depth++; }
        elsif ($w eq 'END' && $depth > 0) { $depth--; }
        $prev_word = $w;
        $i += length $1;
    } elsif ($c eq ';' && $depth == 0) {
        push @statements, substr($text, $start, $i + 1 - $start);
        $i = $start = $i + 1;
    } else {
        $i++;
    }
}
# after the last statement only comments may remain
die "the pieces end inside a statement\n" if substr($text, $start) =~ s/--[^\n]*//gr =~ /\S/;

for my $s (@statements) {
    # the statement's own text, after the comments that introduce it
    (my $body = $s) =~ s/\A(?:\s+|--[^\n]*\n)*//;
    my ($lead) = $s =~ /\A((?:\s+|--[^\n]*\n)*)/;
    next if $lead =~ /^--\s*\@once\s*$/m;
    my $head = uc substr $body, 0, 200;
    $head =~ s/\s+/ /g;
    if ($head =~ /\ACREATE (OR REPLACE )?(FUNCTION|PROCEDURE|AGGREGATE|VIEW|TRIGGER)\b/) {
        $body =~ s/\ACREATE\s+(?!OR\s+REPLACE)/CREATE OR REPLACE /i;
    } elsif ($head !~ /\A(COMMENT ON|GRANT|REVOKE|DO|ALTER (FUNCTION|PROCEDURE|VIEW|AGGREGATE))\b/) {
        next;
    }
    print $body, "\n\n";
}
