#!/usr/bin/env bash
# Documentation check: every citation in the repository resolves to a file
# in the repository (docs/development.md#documentation).  Prints TAP; part of
# `bash test/run.sh test` (test/cluster.sh), and needs no database.
#
#   1. every Markdown file a tracked file cites (`docs/policies.md`,
#      `../README.md`, ...) and every relative link of a Markdown file exists;
#   2. every `#section` cited in a repository Markdown file is one of its
#      headings (GitHub's anchors: lower case, punctuation dropped, spaces
#      to hyphens);
#   3. no tracked file cites the design notes the project started from,
#      which are not in the repository (docs/citations.md maps them);
#   4. no tracked file names a path of a particular machine (a home
#      directory, a work tree, a folder beside the clone);
#   5. docs/functions.md lists every function, aggregate, procedure and
#      view that the SQL pieces (extension/*.sql) create, each in a row that
#      names the piece defining it;
#   6. the README stays a front page: at most 400 lines;
#   7. no file cites an issue or pull-request number (no reader of the
#      repository can open them: a comment says why and cites docs/; what
#      changed is in CHANGELOG.md).
#
# The released scripts extension/fairshare--1.0.sql, --1.1.sql, --1.2.sql,
# --1.0--1.1.sql and --1.1--1.2.sql are never edited, so they are not checked (their old
# citations are mapped in docs/citations.md); nor is this script, which
# holds the patterns it looks for.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# the tracked files, or every file when this is not a git checkout (a
# tarball): build products and test output left out
if git -c safe.directory='*' rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git -c safe.directory='*' ls-files)
else
  files=$(find . -type f ! -path './.git/*' ! -path './.git' ! -name '*.o' ! -name '*.so' ! -name '*.bc' \
            ! -path './results/*' ! -path './output_iso/*' ! -path './tmp_check/*' \
            ! -path './log/*' ! -path './test/bench/out/*' ! -path './test/fuzz/build/*' \
            ! -name 'regression.*' | sed 's|^\./||' | sort)
fi
frozen='^extension/fairshare--(1\.0|1\.1|1\.2|1\.0--1\.1|1\.1--1\.2)\.sql$'
files=$(printf '%s\n' "$files" | grep -Ev "$frozen" | grep -v '^test/docs_check\.sh$')

FILES="$files" exec perl -CSD -Mstrict -Mwarnings -MEncode -e '
my @files = grep { length && -f } split /\n/, $ENV{FILES};
my ($n, $failed) = (0, 0);
sub report { my ($ok, $what, @bad) = @_; $n++; $failed++ unless $ok;
    print(($ok ? "ok" : "not ok"), " $n - $what\n");
    print "#   $_\n" for @bad[0 .. ($#bad < 29 ? $#bad : 29)];
    print "#   ... and ", @bad - 30, " more\n" if @bad > 30; }
sub slurp { my $f = shift; open(my $h, "<:raw", $f) or return ""; local $/; my $t = <$h>; $t = Encode::decode("UTF-8", $t) if defined $t; return defined $t ? $t : ""; }
sub is_text { my $f = shift; return -T $f; }
sub norm { my $p = shift; my @o; for (split m{/}, $p) { next if $_ eq "." || $_ eq "";
    if ($_ eq "..") { return undef unless @o; pop @o; } else { push @o, $_; } } return join "/", @o; }
my %tracked = map { $_ => 1 } @files;
my %dirs; for my $f (@files) { my @p = split m{/}, $f; pop @p; while (@p) { $dirs{join "/", @p} = 1; pop @p; } }
sub dirname { my $f = shift; return $f =~ m{^(.*)/} ? $1 : ""; }
# the design notes the project started from (not in the repository)
my $legacy = qr/\b(?:POLICIES\.md|DESIGN\.md|STYLE\.md|slurm-semantics(?:\.md)?|pg-extension\.md|policies-research\.md)/;

# headings of a Markdown file, as GitHub anchors
my %anchors;
sub anchors_of { my $f = shift; return $anchors{$f} if $anchors{$f};
    my (%a, %seen, $fence); for my $l (split /\n/, slurp($f)) {
        if ($l =~ /^\s*(```|~~~)/) { $fence = !$fence; next; } next if $fence;
        next unless $l =~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
        my $h = lc $1; $h =~ s/\[([^\]]*)\]\([^)]*\)/$1/g; $h =~ s/[^\p{L}\p{N}\s_-]//g; $h =~ s/ /-/g;
        my $s = $seen{$h}++ ? "$h-" . ($seen{$h} - 1) : $h; $a{$s} = 1; }
    return $anchors{$f} = \%a; }

my (@missing, @badanchor, @old, @paths, @issues);
for my $f (@files) {
    next unless is_text($f);
    my $md = $f =~ /\.md$/; my $ln = 0; my $fence = 0;
    for my $l (split /\n/, slurp($f)) {
        $ln++;
        $fence = !$fence if $md && $l =~ /^\s*(```|~~~)/;
        # 4. machine paths
        push @paths, "$f:$ln: $l" if $l =~ m{(?:^|[\s"\x27`(=:,\[])(?:/work/|/root/|/home/\w|/Users/\w|\.\./shared\b)};
        # 7. issue and pull-request numbers
        push @issues, "$f:$ln: $l" if $f ne "docs/citations.md" && $l =~ /\b(?:issues?|PR|pull request)\s*#?\d+\b/i;
        # 3. the old design notes (docs/citations.md maps them)
        push @old, "$f:$ln: $l" if $f ne "docs/citations.md" && $l =~ $legacy;
        (my $t = $l) =~ s{\b(?:https?|ftp)://\S+}{}g;
        # 1, 2. Markdown files cited, and their sections
        my @cites;
        while ($t =~ m{(?<![\w./-])((?:\.\.?/)*[\w][\w./-]*\.md)(#[\w-]+)?(?![\w-])}g) { push @cites, [$1, $2]; }
        if ($md && !$fence) {
            while ($t =~ m{\]\(([^)\s]+)\)}g) { my $target = $1;
                next if $target =~ /^(?:[a-z]+:|#)/ || $target =~ /\.md(?:#|$)/;
                $target =~ s/#.*//; my $p = norm(join "/", grep { length } dirname($f), $target);
                push @missing, "$f:$ln: link to $1" unless defined $p && ($tracked{$p} || $dirs{$p} || $p eq ""); }
            while ($t =~ m{\]\(#([\w-]+)\)}g) {
                push @badanchor, "$f:$ln: #$1 is not a heading of $f" unless anchors_of($f)->{$1}; }
        }
        for my $c (@cites) { my ($path, $anchor) = @$c;
            next if $f eq "docs/citations.md" && $path =~ $legacy;
            my $target;
            for my $base (dirname($f), "") { my $p = norm(join "/", grep { length } $base, $path);
                if (defined $p && $tracked{$p}) { $target = $p; last; } }
            if (!defined $target) { push @missing, "$f:$ln: $path" unless $path =~ $legacy && $f ne "docs/citations.md"; next; }
            next unless defined $anchor; (my $a = $anchor) =~ s/^#//;
            push @badanchor, "$f:$ln: $path$anchor: no such heading in $target" unless anchors_of($target)->{$a};
        }
    }
}
report(!@missing, "every Markdown file cited, and every relative link of a Markdown file, exists", @missing);
report(!@badanchor, "every #section cited is a heading of its Markdown file", @badanchor);
report(!@old, "no file cites the design notes outside the repository (mapped in docs/citations.md)", @old);
report(!@paths, "no file names a path of a particular machine", @paths);

# 5. docs/functions.md lists every public function, aggregate, procedure and view
my $readme = slurp("README.md"); my $listing = slurp("docs/functions.md"); my @unlisted; my $objects = 0; my %seen;
for my $f (sort grep { m{^extension/[^/]+\.sql$} && !m{/fairshare--} } @files) {
    my $sql = slurp($f);
    while ($sql =~ /^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|AGGREGATE|PROCEDURE|VIEW)\s+\@extschema\@\.([a-z]\w*)/mg) {
        my $name = $1; $objects++;
        next if $seen{$name}++;
        (my $piece = $f) =~ s{^extension/}{};
        push @unlisted, "$f: $name" unless $listing =~ /^\| \[`\Q$name\E[`(][^\n]*\]\(\.\.\/extension\/\Q$piece\E\) \|$/m; } }
report(!@unlisted && $objects > 0, "docs/functions.md lists every function and view of extension/*.sql in a row naming its piece ($objects created)", @unlisted);

# 6. a front page
my $lines = () = $readme =~ /\n/g;
report($lines <= 400, "README.md is a front page of at most 400 lines ($lines)");
report(!@issues, "no file cites an issue or pull-request number", @issues);
print "1..$n\n";
exit($failed ? 1 : 0);
'
