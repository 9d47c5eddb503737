package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An image block at 80×24, in tmux (half-blocks: tmux without
// passthrough): the preview appears below its header, scrolls with the
// view, and is gone after esc. With the demo server's image tool, and
// with server-everything's get-tiny-image when MCPSCOPE_THIRD_PARTY is
// set (a PNG whose iCCP chunk has a wrong CRC, drawn as browsers do).
func flowImagePreview(t *testing.T, a *accept) {
	servers := []struct {
		name, tool string
		args       []string
	}{{"demo", "image", nil}}
	if dir := os.Getenv("MCPSCOPE_THIRD_PARTY"); dir != "" {
		index := filepath.Join(dir, "node_modules", "@modelcontextprotocol/server-everything", "dist", "index.js")
		if _, err := os.Stat(index); err != nil {
			t.Fatalf("MCPSCOPE_THIRD_PARTY is set but server-everything is not installed there: %v", err)
		}
		servers = append(servers, struct {
			name, tool string
			args       []string
		}{"server-everything", "get-tiny-image", []string{"--", "node", index, "stdio"}})
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			s := a.start(t, 80, 24, srv.args...)
			s.ready()
			s.openToolNamed(srv.tool)
			s.keys("C-s")
			scr := s.see("▀")
			top := firstRowWith(scr, "▀")
			if head := firstRowWith(scr, "] image"); head < 0 || head >= top {
				t.Fatalf("the preview is not below its block's header:\n%s", scr)
			}
			if strings.Contains(scr, "not shown") {
				t.Fatalf("the image is not shown:\n%s", scr)
			}
			// j scrolls the body a line: the preview moves up with it.
			s.keys("j", "j")
			s.waitFor("the preview to scroll", 5*time.Second, func(scr string) bool {
				r := firstRowWith(scr, "▀")
				return r >= 0 && r < top
			})
			s.keys("Escape")
			s.gone("▀")
		})
	}
}

// firstRowWith is the index of the first screen row holding text, or -1.
func firstRowWith(scr, text string) int {
	for i, row := range strings.Split(scr, "\n") {
		if strings.Contains(row, text) {
			return i
		}
	}
	return -1
}
