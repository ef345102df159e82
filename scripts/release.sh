#!/usr/bin/env bash
# Tags a release (make release): the version classroom-player --version prints, as a plain
# semantic-version tag (0.9.0), which is what SwiftPM resolves `from: "0.9.0"` against. Refuses
# unless the work tree is clean, CHANGELOG.md has that version's section, and the tag is new.
#
#   scripts/release.sh          tag HEAD, then say how to publish it
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
die() { echo "release: $*" >&2; exit 1; }

version=$(bash scripts/version.sh)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "Sources/classroom-player/Release.swift gives no version of the form MAJOR.MINOR.PATCH (found '$version')"
[[ -z $(git status --porcelain) ]] || die "the work tree has changes; commit them first, a release is a commit"
grep -qE "^## \[$version\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$" CHANGELOG.md \
  || die "CHANGELOG.md has no '## [$version] - YYYY-MM-DD' section; write what this release changes first"
if git rev-parse -q --verify "refs/tags/$version" > /dev/null; then
  die "tag $version already exists (on $(git rev-parse --short "$version^{commit}")); raise the version in Release.swift and CHANGELOG.md for a new release"
fi
git tag -a "$version" -m "classroom-audio $version"
echo "release: tagged $(git rev-parse --short HEAD) as $version; publish it with: git push origin $version"
