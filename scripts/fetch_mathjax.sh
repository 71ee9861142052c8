#!/usr/bin/env bash
# Put MathJax 3 (from the npm registry) into book/_static/mathjax so the built book
# typesets its mathematics without any network access at reading time.
set -euo pipefail
version="${MATHJAX_VERSION:-3.2.2}"
dest="book/_static/mathjax"
if [ -f "$dest/es5/tex-chtml-full.js" ] && [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ]; then
  exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "fetch_mathjax: npm is needed to fetch MathJax $version (apt-get install npm)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "mathjax@$version" >/dev/null)
tar -xzf "$tmp/mathjax-$version.tgz" -C "$tmp" package/es5/tex-chtml-full.js package/es5/output/chtml/fonts/woff-v2
rm -rf "$dest"
mkdir -p "$dest/es5"
cp "$tmp/package/es5/tex-chtml-full.js" "$dest/es5/"
mkdir -p "$dest/es5/output/chtml/fonts"
cp -r "$tmp/package/es5/output/chtml/fonts/woff-v2" "$dest/es5/output/chtml/fonts/"
echo "$version" > "$dest/VERSION"
echo "fetch_mathjax: MathJax $version in $dest"
