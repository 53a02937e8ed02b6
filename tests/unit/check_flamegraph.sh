#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pmclog flamegraph's page in a real browser: headless Chromium (Debian's
# chromium, scripts/install-deps.sh) loads the file the tool wrote for a
# log of a program built here (mklog stacks: two PMCs, kernel and user
# frames, a function whose name would end a <script>), and what it
# rendered is read back from the DOM (--dump-dom): each frame's name,
# samples, depth and kind must be report --format folded's, event by
# event.  The interactions go through the page's own handlers: the URL
# fragment dispatches the click on a frame (zoom), the input event of the
# search box and the change event of the event switch, as a user's mouse
# and keys do; the DOM then shows what they did.  Also report --format
# chrome-trace of the same log, through a JSON parser.  Prints TAP; exits 1
# when a test fails, 0 with a SKIP line when chromium is not installed.
#
#   check_flamegraph.sh PMCLOG MKLOG
set -uo pipefail

pmclog=${1:?usage: check_flamegraph.sh PMCLOG MKLOG}
mklog=${2:?usage: check_flamegraph.sh PMCLOG MKLOG}
chromium=${CHROMIUM:-chromium}

if ! command -v "$chromium" >/dev/null; then
	echo "1..0 # SKIP flamegraph: no $chromium (Debian's chromium: scripts/install-deps.sh installs it)"
	exit 0
fi

tmp=$(mktemp -d /tmp/pmclog-flame-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

cat >"$tmp/prog.c" <<'EOF'
__attribute__((noinline)) unsigned long hot(unsigned long n) { volatile unsigned long x = 0; for (unsigned long i = 0; i < n; i++) x += i; return x; }
__attribute__((noinline)) unsigned long path_a(void) { return hot(200) + 1; }
__attribute__((noinline)) unsigned long path_b(void) { return hot(100) + 1; }
int main(void) { return (int)(path_a() + path_b()); }
EOF
if ! cc -O0 -fno-omit-frame-pointer -fno-pie -no-pie -o "$tmp/prog" "$tmp/prog.c" ||
   ! "$mklog" stacks "$tmp/log" "$tmp/prog"; then
	echo "not ok 1 - the program and its log could not be made"
	exit 1
fi

# The stacks as report prints them, one file per event.
for ev in 1 2; do
	"$pmclog" report -q --format folded --event "$ev" "$tmp/log" >"$tmp/folded.$ev" ||
		not_ok "report --format folded --event $ev"
done

if "$pmclog" flamegraph -q -o "$tmp/fg.html" "$tmp/log"; then
	ok "flamegraph -o writes the page"
else
	not_ok "flamegraph -o writes the page (exit $?)"
fi
"$pmclog" flamegraph -q -o - "$tmp/log" >"$tmp/stdout.html" 2>"$tmp/err"
if cmp -s "$tmp/fg.html" "$tmp/stdout.html" && [[ ! -s $tmp/err ]]; then
	ok "flamegraph -o - writes the same page on standard output"
else
	not_ok "flamegraph -o - writes the same page on standard output"
fi
"$pmclog" flamegraph -q -o "$tmp/none.html" "$tmp/log" --pid 999 2>"$tmp/err"
rc=$?
if [[ $rc == 65 && ! -e $tmp/none.html ]] && grep -q 'no stacks' "$tmp/err"; then
	ok "no stacks left (--pid 999): exit 65, no page"
else
	not_ok "no stacks left (--pid 999): exit 65, no page (got $rc: $(head -c 200 "$tmp/err"))"
fi

# Self-contained: nothing fetched, no script or style from elsewhere.
if grep -Eiq '<script[^>]+src|<link|@import|url\(|https?:|//[a-z0-9.-]+\.[a-z]{2,}/' "$tmp/fg.html"; then
	not_ok "the page loads nothing: $(grep -Eio '<script[^>]+src|<link|@import|url\(|https?:[^ "]*' "$tmp/fg.html" | head -3)"
else
	ok "the page loads nothing"
fi

# dom FRAGMENT: the DOM Chromium rendered for the page at #FRAGMENT, in $tmp/dom.
dom() {
	local profile
	profile=$(mktemp -d "$tmp/profile-XXXXXX")
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --virtual-time-budget=5000 \
		--dump-dom "file://$tmp/fg.html#$1" >"$tmp/dom" 2>"$tmp/chromium.err"
	local rc=$?
	[[ $rc == 0 && -s $tmp/dom ]] || {
		echo "# chromium exited $rc: $(tail -3 "$tmp/chromium.err")"
		return 1
	}
}

# check MODE ARGS: python's verdict on $tmp/dom (see below); its message.
check() {
	python3 - "$tmp/dom" "$@" <<'EOF'
import sys
from html.parser import HTMLParser

dom_file, mode, *args = sys.argv[1:]

class Frames(HTMLParser):
    """The chart's frames in document order, and a few elements by id."""
    def __init__(self):
        super().__init__()
        self.frames, self.ids, self._id = [], {}, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and "frame" in a.get("class", "").split():
            self.frames.append(a)
        if a.get("id") in ("matched", "zoomed"):
            self._id = a["id"]
            self.ids[self._id] = {"attrs": a, "text": ""}
    def handle_data(self, data):
        if self._id:
            self.ids[self._id]["text"] += data
    def handle_endtag(self, tag):
        self._id = None

p = Frames()
p.feed(open(dom_file, encoding="utf-8").read())

def tree(frames):
    """{path: (samples, kind, classes)} from the pre-order frames' depths."""
    out, path = {}, []
    for f in frames:
        d = int(f["data-depth"])
        path[d:] = [f["data-name"]]
        if d == 0:
            continue
        out[tuple(path[1:])] = (int(f["data-samples"]), f["data-kind"],
                                set(f["class"].split()), f["style"])
    return out

def folded(file):
    """The same from report --format folded: each prefix's samples and kind."""
    out = {}
    for line in open(file, "rb").read().decode("utf-8", "backslashreplace").splitlines():
        stack, count = line.rsplit(" ", 1)
        path = []
        for i, name in enumerate(stack.split(";")):
            kind = "process" if i == 0 else "user"
            if name.endswith("_[k]"):
                name, kind = name[:-4], "kernel"
            path.append(name)
            s, _ = out.get(tuple(path), (0, kind))
            out[tuple(path)] = (s + int(count), kind)
    return out

def fail(msg):
    print(msg)
    sys.exit(1)

got = tree(p.frames)
if mode == "same":                      # same FOLDED: every frame, as folded has it
    want = folded(args[0])
    have = {k: (v[0], v[1]) for k, v in got.items()}
    if have != want:
        fail("DOM %s != folded %s" % (sorted(have.items()), sorted(want.items())))
    print("%d frames, %d samples" % (len(have), sum(v[0] for k, v in have.items() if len(k) == 1)))
elif mode == "zoom":                    # zoom PATH SAMPLES: PATH full width, nothing beside it
    path = tuple(args[0].split(";"))
    if got.get(path, (0, "", set(), ""))[3].find("width: 100%") < 0:
        fail("%s is not full width: %s" % (args[0], got.get(path)))
    for k, v in got.items():
        inside = k[:len(path)] == path
        above = path[:len(k)] == k
        if not inside and not above:
            fail("%s is drawn beside the zoomed frame" % ";".join(k))
        if above and k != path and "ancestor" not in v[2]:
            fail("%s, above the zoomed frame, is not marked ancestor" % ";".join(k))
    if int(got[path][0]) != int(args[1]):
        fail("%s: %s samples, not %s" % (args[0], got[path][0], args[1]))
    z = p.ids.get("zoomed", {}).get("text", "")
    if z != "Zoomed: " + args[0]:
        fail("the zoom line says %r" % z)
    print("zoomed: %d frames drawn" % len(got))
elif mode == "search":                  # search TERM SAMPLES TEXT: matches and their share
    term, samples, text = args
    for k, v in got.items():
        if ("match" in v[2]) != (term in k[-1]):
            fail("%s: match class %s" % (";".join(k), "match" in v[2]))
    m = p.ids.get("matched")
    if not m or m["attrs"].get("data-samples") != samples or m["text"] != text:
        fail("matched: %r" % m)
    print(m["text"])
elif mode == "name":                    # name NAME KIND: a frame of that name and kind
    if not any(k[-1] == args[0] and v[1] == args[1] for k, v in got.items()):
        fail("no %s frame named %r" % (args[1], args[0]))
    print("frame %r" % args[0])
EOF
}

# expect DESC FRAGMENT MODE ARGS...: the page at #FRAGMENT passes check MODE ARGS.
expect() {
	local desc=$1 frag=$2 out
	shift 2
	if ! dom "$frag"; then
		not_ok "$desc: chromium rendered nothing"
		return
	fi
	if out=$(check "$@"); then
		ok "$desc: $out"
	else
		not_ok "$desc: $out"
	fi
}

expect "first event's frames, samples and kinds are folded's" "" same "$tmp/folded.1"
expect "event switch (change): instructions' frames are folded's" "event=instructions" \
	same "$tmp/folded.2"
expect "a name that would end a <script> is shown as it is" "event=instructions" \
	name '</script><b>x\xff' kernel
expect "click on path_a zooms into it" "zoom=prog%3Bmain%3Bpath_a" \
	zoom "prog;main;path_a" 20
expect "click on a kernel frame of the second event zooms into it" \
	"event=2&zoom=prog%3Bmain%3Bdo_syscall_64" zoom "prog;main;do_syscall_64" 2
expect "click on the top frame after a zoom shows everything again" \
	"zoom=prog%3Bmain%3Bpath_a&zoom=" same "$tmp/folded.1"
hot=$(awk '/;hot / { s += $NF } END { print s }' "$tmp/folded.1")
total=$(awk '{ s += $NF } END { print s }' "$tmp/folded.1")
expect "search (input) marks hot and says its share" "search=hot" \
	search hot "$hot" "Matched: $(python3 -c "print('%.2f' % (100 * $hot / $total))")% ($hot of $total samples)"
expect "search within a zoom counts the whole event's matches" \
	"zoom=prog%3Bmain%3Bpath_b&search=path" search path 30 \
	"Matched: 85.71% (30 of 35 samples)"

# The same log over time, from the command line: report --format
# chrome-trace is JSON (python3's parser), every sample an event of its
# thread with its stack.
if out=$("$pmclog" report -q --format chrome-trace "$tmp/log" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = [e for e in d["traceEvents"] if e.get("cat") == "sample"]
print(len(s), sum("sf" in e and e["sf"] in d["stackFrames"] for e in s),
      sorted(set(e["args"]["event"] for e in s)))') &&
   [[ $out == "41 41 ['cpu-clock', 'instructions']" ]]; then
	ok "report --format chrome-trace: JSON, 41 samples with their stacks, both events"
else
	not_ok "report --format chrome-trace: JSON, 41 samples with their stacks, both events (got '$out')"
fi

echo "1..$n"
[[ $failed == 0 ]]
