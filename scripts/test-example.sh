#!/usr/bin/env bash
# Builds examples/embed — a package of its own that depends on this one by path, as an
# integrator's does — and runs it on the samples: the lesson and a classmate mixed into a WAV, the
# processed microphone into another. Both must hold sound; the levels are printed. The Swift snippet
# README.md and docs/INTEGRATING.md show must be the example's marked lines (scripts/snippets.py).
# Then a package that asks for this one by version, `from: "VERSION"`, must resolve to its tag.
#
#   SCRATCH=.build bash scripts/test-example.sh    (its build goes to $SCRATCH-example)
set -euo pipefail
swift=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$root/${SCRATCH:-.build}-example
out=$root/out/example
cd "$root"
python3 scripts/snippets.py --check
"$swift" build --package-path examples/embed --scratch-path "$scratch"
mkdir -p "$out"
"$scratch/debug/embed" samples/lesson.webm samples/live-feed.ogg samples/student-mic.ogg "$out/mix.wav" "$out/uplink.wav"

mix=$(bash scripts/wav-level.sh "$out/mix.wav")
uplink=$(bash scripts/wav-level.sh "$out/uplink.wav")
echo "FIGURE examples/embed: mix $(soxi -D "$out/mix.wav") s at $mix dBFS RMS, uplink $(soxi -D "$out/uplink.wav") s at $uplink dBFS RMS"
awk -v mix="$mix" -v up="$uplink" 'BEGIN { exit !(mix != "-inf" && mix > -40 && up != "-inf" && up > -50) }' || {
  echo "test-example: the example's WAVs are silent or too quiet (mix $mix dBFS, uplink $uplink dBFS; bounds -40 and -50): the embedded engine did not play or send what it was given." >&2
  exit 1
}

# A release as an integrator's package sees it: this repository tagged with the version
# classroom-player --version prints (scripts/release.sh; the repository's own tag when it has one)
# resolves from a package that asks for it by version.
version=$(bash scripts/version.sh)
tagged=$(mktemp -d)
trap 'rm -rf "$tagged"' EXIT
git clone -q "$root" "$tagged/classroom-audio"
git -C "$tagged/classroom-audio" rev-parse -q --verify "refs/tags/$version" > /dev/null \
  || git -C "$tagged/classroom-audio" -c user.name=test-example -c user.email=test-example@localhost tag -a "$version" -m "classroom-audio $version"
mkdir -p "$tagged/consumer/Sources/consumer"
cat > "$tagged/consumer/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "consumer",
    dependencies: [.package(url: "file://$tagged/classroom-audio", from: "$version")],
    targets: [.executableTarget(name: "consumer", dependencies: [.product(name: "ClassroomEngine", package: "classroom-audio")])]
)
SWIFT
echo 'import ClassroomEngine' > "$tagged/consumer/Sources/consumer/main.swift"
"$swift" package --package-path "$tagged/consumer" resolve > "$tagged/resolve.log" 2>&1 || {
  cat "$tagged/resolve.log" >&2
  echo "test-example: a package asking for classroom-audio from: \"$version\" does not resolve against the tag $version (output above)." >&2
  exit 1
}
resolved=$(python3 -c 'import json,sys; pins=json.load(open(sys.argv[1]))["pins"]; print(next(p["state"].get("version") for p in pins if p["identity"] == "classroom-audio"))' "$tagged/consumer/Package.resolved")
[[ $resolved == "$version" ]] || { echo "test-example: from: \"$version\" resolved classroom-audio to '$resolved', not the tag $version." >&2; exit 1; }
echo "FIGURE release tag: a package asking for classroom-audio from: \"$version\" resolves to $resolved"
echo "test-example: examples/embed builds against the library products and plays; the release tag resolves."
