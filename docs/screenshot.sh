#!/usr/bin/env bash
# Renders docs/mcpscope.svg, the README's picture, from the real screen: it
# builds mcpscope, runs it on the built-in demo server in a 120x35 tmux
# pane (the wide layout, log beside the explorer), calls the add tool
# through its form as a person would, captures the pane with its colours
# (tmux capture-pane -e) and renders that with charmbracelet/freeze.
#
#   docs/screenshot.sh            # rewrites docs/mcpscope.svg
#   docs/screenshot.sh OUT.svg    # writes elsewhere
#   docs/screenshot.sh --image    # rewrites docs/tui-image.svg: the demo's
#                                 # image tool's result at 80x24, its picture
#                                 # drawn in half-block cells
#
# Needs Go and tmux; freeze is run with go run at a pinned version, so
# nothing is added to go.mod. The times and sizes on screen are the run's
# own, so two runs differ in those figures and nowhere else.
set -euo pipefail

freeze=github.com/charmbracelet/freeze@v0.2.2
cols=120
rows=35
top=$(cd "$(dirname "$0")/.." && pwd)
shot=add
if [ "${1:-}" = --image ]; then
	shift
	shot=image cols=80 rows=24
	set -- "${1:-$top/docs/tui-image.svg}"
fi
out=${1:-$top/docs/mcpscope.svg}
work=$(mktemp -d)
sock=mcpscope-shot-$$
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock" # kill-server leaves it
	rm -rf "$work"
}
trap cleanup EXIT

(cd "$top" && go build -o "$work/mcpscope" .)

# The demo server is the target; the run's directory is empty, so no calls
# file of the checkout shows. The theme and colour depth are fixed so that
# the picture does not depend on the terminal that runs this script.
# Under TERM=tmux-* the colour profile is asked of tmux, whose detached
# session has no terminal to take 24-bit colour from; as xterm-256color
# with COLORTERM=truecolor it is the theme's own colours, which tmux keeps.
echo 'set -g default-terminal xterm-256color' >"$work/tmux.conf"
env -u NO_COLOR COLORTERM=truecolor tmux -L "$sock" -f "$work/tmux.conf" new-session -d \
	-x "$cols" -y "$rows" -c "$work" "$work/mcpscope --theme dark --images blocks"

screen() { tmux -L "$sock" capture-pane -p; }
keys() { tmux -L "$sock" send-keys "$@"; }
# wait_for waits until the screen shows text (a fixed string), at most 10 s.
wait_for() {
	for _ in $(seq 200); do
		if screen | grep -qF -- "$1"; then
			return 0
		fi
		sleep 0.05
	done
	echo "screenshot: the screen never showed \"$1\":" >&2
	screen >&2
	exit 1
}

wait_for "● ready"
wait_for "resources/templates/list"
keys 3
wait_for "Tools · "
if [ "$shot" = image ]; then
	# The tools are listed by name: image is the seventh.
	keys j j j j j j
	wait_for "name image"
	keys Enter
	wait_for "Call image"
	keys C-s
	wait_for "▀"
else
	keys Enter
	wait_for "Call add"
	keys 2 Tab 3
	wait_for "✓"
	keys C-s
	wait_for "Result · add"
	keys Escape
	wait_for "result of tools/call add"
fi

tmux -L "$sock" capture-pane -e -p >"$work/screen.ansi"
(cd "$work" && go run "$freeze" --language ansi --window=false --padding 20 \
	--line-height 1.0 --output "$out" screen.ansi)
