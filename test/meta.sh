#!/usr/bin/env bash
# META.json, the PGXN distribution's metadata (https://pgxn.org/spec/, META
# spec 1.0.0): it parses, has the keys the spec requires with values of the
# forms it allows, and its versions are the extension's.  The extension's
# version (fairshare.control's default_version, "1.2") becomes a semantic
# version by its missing parts as zeros ("1.2.0"): that is the distribution's
# version, the provided extension's, and the Debian package's
# (debian/changelog).  Prints TAP; run by test/cluster.sh test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
exec perl -MJSON::PP -e '
use strict; use warnings;
my $n = 0;
sub ok { my ($c, $what) = @_; $n++; print(($c ? "ok" : "not ok"), " $n - $what\n"); return $c; }
sub slurp { open my $f, "<", $_[0] or return undef; local $/; my $s = <$f>; close $f; $s }
my $semver = qr/^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[A-Za-z][0-9A-Za-z-]*)?$/;
my $json = slurp("META.json");
my $m = eval { JSON::PP->new->decode($json // "") };
ok(ref $m eq "HASH", "META.json parses as a JSON object") or do { print "# $@"; exit 1 };

my @required = qw(name abstract version maintainer license provides meta-spec);
my @optional = qw(description prereqs resources generated_by tags no_index release_status);
ok(!(grep { !exists $m->{$_} } @required), "the required keys are there: @required")
  or print "# missing: ", join(" ", grep { !exists $m->{$_} } @required), "\n";
my %known = map { $_ => 1 } @required, @optional;
my @unknown = grep { !$known{$_} && !/^x_/i } keys %$m;
ok(!@unknown, "no other keys but custom x_ ones") or print "# unknown: @unknown\n";
ok(ref $m->{"meta-spec"} eq "HASH" && ($m->{"meta-spec"}{version} // "") eq "1.0.0", "meta-spec version 1.0.0");
ok(!!(($m->{name} // "") =~ /^[A-Za-z][A-Za-z0-9_-]{1,}$/), "name \"" . ($m->{name} // "") . "\" is a distribution name");
ok(!ref $m->{abstract} && length($m->{abstract} // "") > 0, "abstract is a string");
ok((!ref $m->{maintainer} && $m->{maintainer}) || (ref $m->{maintainer} eq "ARRAY" && @{$m->{maintainer}}), "maintainer is a string or a list");
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd gfdl_1_2 gfdl_1_3
  gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun zlib
  open_source restricted unrestricted unknown);
my $lic = $m->{license};
ok((!ref $lic && $licenses{$lic // ""}) || (ref $lic eq "ARRAY" && !grep { !$licenses{$_} } @$lic) || ref $lic eq "HASH",
   "license is one the spec names");
ok(!!(($m->{version} // "") =~ $semver), "version " . ($m->{version} // "") . " is a semantic version");

# the extension: fairshare.control, its version, and the Debian package
my $control = slurp("fairshare.control") // "";
my ($ext) = $control =~ /^default_version\s*=\s*\x27([^\x27]+)\x27/m;
$ext //= "";
my @parts = split /\./, $ext; push @parts, 0 while @parts < 3;
my $want = join ".", @parts;
ok(($m->{version} // "") eq $want, "version " . ($m->{version} // "") . " is fairshare.control\x27s default_version $ext as a semantic version ($want)");
my $p = ref $m->{provides} eq "HASH" ? $m->{provides} : {};
ok(ref $p->{fairshare} eq "HASH", "provides the extension fairshare");
my $pf = $p->{fairshare} // {};
my $bad = 0;
for my $e (sort keys %$p) {
  my $x = $p->{$e};
  unless (ref $x eq "HASH" && ($x->{version} // "") =~ $semver && defined $x->{file}) { $bad++; next; }
  for my $k (qw(file docfile)) { $bad++ if defined $x->{$k} && !-f $x->{$k}; }
}
ok(!$bad && !!%$p, "each provided extension has a file and a version, and its files are in the repository");
ok(($pf->{version} // "") eq $want, "provides.fairshare.version " . ($pf->{version} // "") . " is $want");
my ($deb) = (slurp("debian/changelog") // "") =~ /^fairshare \(([^)]+)\)/;
ok(($deb // "") eq $want, "debian/changelog\x27s version " . ($deb // "") . " is $want");

# prereqs: phases, relations, and versions as the spec has them
my $pr = $m->{prereqs} // {};
my %phase = map { $_ => 1 } qw(configure build test runtime develop);
my %rel = map { $_ => 1 } qw(requires recommends suggests conflicts);
$bad = ref $pr eq "HASH" ? 0 : 1;
for my $ph (keys %{ ref $pr eq "HASH" ? $pr : {} }) {
  $bad++, next unless $phase{$ph} && ref $pr->{$ph} eq "HASH";
  for my $r (keys %{ $pr->{$ph} }) {
    $bad++, next unless $rel{$r} && ref $pr->{$ph}{$r} eq "HASH";
    for my $v (values %{ $pr->{$ph}{$r} }) { $bad++ unless "$v" eq "0" || "$v" =~ $semver; }
  }
}
ok(!$bad, "prereqs: known phases and relations, versions 0 or semantic");
my $pg = $pr->{runtime}{requires}{PostgreSQL} // "";
my ($min) = (slurp("extension/fairshare.h") // "") =~ /PG_VERSION_NUM < (\d+)0000/;
ok($pg eq (($min // "?") . ".0.0"), "runtime requires PostgreSQL $pg, the oldest fairshare.h builds on");

my $res = $m->{resources} // {};
$bad = ref $res eq "HASH" ? 0 : 1;
for my $k (keys %{ ref $res eq "HASH" ? $res : {} }) {
  next if $k =~ /^x_/i;
  $bad++ unless $k =~ /^(homepage|bugtracker|repository)$/;
}
ok(!$bad, "resources: homepage, bugtracker, repository or custom keys only");
'
