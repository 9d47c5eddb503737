package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mcpscope/mcpscope/mcp/demo"
	"github.com/spf13/cobra"
)

func newDemoServerCommand() *cobra.Command {
	var httpAddr string
	cmd := &cobra.Command{
		Use:   "demo-server [--http ADDR]",
		Short: "Run the built-in demo MCP server on stdio, or over HTTP with --http",
		Long: `Runs mcpscope's demo server on stdin/stdout. It serves both protocol eras and
exercises everything a debugger must show: rich tool schemas, structured output,
progress, logging, elicitation, sampling, roots, resources, templates and prompts.

With --http ADDR it serves the same server over HTTP instead: Streamable HTTP
(both eras) at /mcp and the legacy HTTP+SSE transport at /sse. ADDR without a
host (:8080) listens on 127.0.0.1 only; name a host (0.0.0.0:8080) to listen
elsewhere. The address it listens on and the URLs are printed on stderr; stop
it with Ctrl-C.`,
		Example: `  mcpscope demo-server --http 127.0.0.1:8080
  mcpscope http://127.0.0.1:8080/mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if httpAddr != "" {
				return serveDemoHTTP(cmd.Context(), cmd, httpAddr)
			}
			return demo.RunStdio(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve over HTTP on ADDR instead of stdio (e.g. 127.0.0.1:8080; :8080 is 127.0.0.1:8080, :0 any free port; 0.0.0.0:8080 every interface)")
	return cmd
}

// serveDemoHTTP serves the demo server's HTTP handler until ctx ends.
func serveDemoHTTP(ctx context.Context, cmd *cobra.Command, addr string) error {
	ln, err := net.Listen("tcp", loopbackUnlessNamed(addr))
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--http %s: %w", addr, err))
	}
	where := ""
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		where = " (every interface: other machines can reach it)"
	}
	base := "http://" + displayAddr(ln.Addr())
	_, _ = fmt.Fprintf(cmd.ErrOrStderr(), "mcpscope demo server listening on %s%s\n  Streamable HTTP (both eras): %s/mcp\n  legacy HTTP+SSE (2024-11-05): %s/sse\nTry: mcpscope %s/mcp\n",
		ln.Addr(), where, base, base, base)
	srv := &http.Server{Handler: demo.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("demo server: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("demo server shutdown: %w", err)
	}
	_ = srv.Close() // streams still open after the grace period
	return nil
}

// loopbackUnlessNamed is the address to listen on for --http ADDR: an
// address without a host (":8080") listens on 127.0.0.1, as a server
// meant for this machine should; a named host is taken as it is.
func loopbackUnlessNamed(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// displayAddr turns a listener address into one a client can dial: an
// unspecified host becomes the loopback address.
func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}
