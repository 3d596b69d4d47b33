#!/usr/bin/env bash
# The strength report in a real browser (headless Chromium): report.html is
# one self-contained page (no file next to it is referenced), it opens, and
# every image on it loads (a probe script added to a copy of the page reads
# each image's state after the load event); a copy with one image broken is
# caught, so the check can fail.  Exit 77 (skipped) without Chromium; CI
# installs it (.ci/setup --test).
# usage: test_report_browser.sh PATH/TO/tavreli SOURCE_DIR
set -u
tv=$1
src=$2
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "no chromium: skipped (Debian: apt-get install chromium)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/selfplay_common.sh" # check, write_test_configs
write_test_configs "$tmp" "$src"

"$tv" selfplay "$tmp/t.ini" --out "$tmp/t.h5" --games 12 --quiet >/dev/null 2>&1
"$tv" report "$tmp/t.h5" -o "$tmp/rep" >/dev/null 2>"$tmp/err"
check "report written" [ -s "$tmp/rep/report.html" ]
check "report.html links no file: every image is inlined" \
  sh -c "! grep -o 'src=\"[^\"]*' '$tmp/rep/report.html' | grep -v 'src=\"data:image/png;base64,'"

# A copy of the page with a probe that reports, after the load event, how
# many images there are and which did not load.
probe() {
  sed 's|</body>|<script>window.addEventListener("load", function () { var im = document.images, bad = []; for (var i = 0; i < im.length; i++) if (!im[i].complete \|\| im[i].naturalWidth === 0) bad.push(im[i].title); document.title = "IMAGES " + im.length + " BROKEN " + bad.length + " " + bad.join(","); });</script></body>|' "$1" >"$2"
}
open_page() { # open_page FILE.html: the page's title after loading, on stdout
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$tmp/profile" \
    --virtual-time-budget=10000 --dump-dom "file://$1" 2>>"$tmp/browser.log" | sed -n 's|.*<title>\([^<]*\)</title>.*|\1|p'
}
probe "$tmp/rep/report.html" "$tmp/probe.html"
title=$(open_page "$tmp/probe.html")
check "the page opens in the browser ($title)" [ -n "$title" ]
check "every image loads" sh -c "echo '$title' | grep -Eq '^IMAGES ([3-9]|[1-9][0-9]) BROKEN 0 ?$'"

# the check itself: one image broken in a copy is found
sed '0,/base64,iVBORw0KGgo/s//base64,XXXXXXXXXX/' "$tmp/rep/report.html" >"$tmp/broken.html"
probe "$tmp/broken.html" "$tmp/probe2.html"
title=$(open_page "$tmp/probe2.html")
check "a broken image is caught ($title)" sh -c "echo '$title' | grep -q 'BROKEN 1 '"

# and the page is not blank when drawn
(cd "$tmp" && timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$tmp/profile" \
  --window-size=1000,2000 --screenshot="$tmp/shot.png" "file://$tmp/rep/report.html" >>"$tmp/browser.log" 2>&1)
size=$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)
check "a screenshot of the page is not blank ($size bytes)" [ "$size" -gt 20000 ]

echo "test_report_browser: $passes passed, $fails failed"
[ "$fails" = 0 ]
