package host

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/chromium"
)

// quiet is how long a rendered view must stay silent, after its result was
// delivered, before Render takes its picture: late CSP reports and console
// errors of the view's first render arrive within it.
const quiet = 400 * time.Millisecond

// Rendered is a view as a headless browser showed it.
type Rendered struct {
	Page *chromium.Page // open until the caller closes it
	PNG  []byte
	// Delivered is set when the host sent tool-result or tool-cancelled,
	// that is the view initialised and got its call.
	Delivered bool
}

// Render opens the view's host page in b, waits until the view has its
// result (or the host gave up on its ui/initialize), then until it has been
// quiet a moment, and takes a screenshot. The page stays open for the
// caller (a click, a look at the DOM); close it with Page.Close.
func Render(ctx context.Context, b *chromium.Browser, v *View, width, height int) (*Rendered, error) {
	page, err := b.Open(ctx, v.URL, width, height)
	if err != nil {
		return nil, err
	}
	r := &Rendered{Page: page}
	e, err := v.WaitFor(ctx, func(e Event) bool {
		m := e.Method()
		return !e.FromView && (m == "ui/notifications/tool-result" || m == "ui/notifications/tool-cancelled") ||
			e.Kind == KindProblem && e.Rule == RuleNoInitialize
	})
	if err != nil {
		return r, fmt.Errorf("the view did not get its result: %w", err)
	}
	r.Delivered = e.Kind == KindBridge
	if err := waitQuiet(ctx, v, quiet); err != nil {
		return r, err
	}
	if r.PNG, err = page.Screenshot(ctx); err != nil {
		return r, err
	}
	return r, nil
}

// waitQuiet returns once the view has had no event for d.
func waitQuiet(ctx context.Context, v *View, d time.Duration) error {
	for {
		v.tl.mu.Lock()
		changed := v.tl.changed
		v.tl.mu.Unlock()
		t := time.NewTimer(d)
		select {
		case <-t.C:
			return nil
		case <-changed:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}
