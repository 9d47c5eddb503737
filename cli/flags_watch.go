package cli

import (
	"errors"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/watch"
	"github.com/spf13/pflag"
)

// watchFlags are hot reload's: --watch, --build, --watch-ignore (and, for
// the TUI, --rerun).
type watchFlags struct {
	paths  []string
	build  string
	ignore []string
	rerun  bool
}

// register adds the flags every reloading command has.
func (o *watchFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.paths, "watch", nil, "restart the server when a file under PATH changes (repeatable; a directory is watched with everything in it, .git, node_modules, caches and editors' swap and backup files left out)")
	fs.StringVar(&o.build, "build", "", "with --watch: run this shell command before each restart; when it fails, its output is shown and the running server is kept")
	fs.StringArrayVar(&o.ignore, "watch-ignore", nil, "with --watch: changes to paths matching this glob do not count (repeatable; a name such as *.log, or a path with a slash such as dist/*)")
}

// registerRerun adds --rerun (the TUI's).
func (o *watchFlags) registerRerun(fs *pflag.FlagSet) {
	fs.BoolVar(&o.rerun, "rerun", false, "with --watch: after each restart, send the last tool call, resource read or prompt get made by hand again and show how its answer changed")
}

// on reports whether hot reload was asked for.
func (o *watchFlags) on() bool { return len(o.paths) > 0 }

// check refuses the flags that need --watch without it.
func (o *watchFlags) check() error {
	if o.on() {
		return nil
	}
	switch {
	case o.build != "":
		return errors.New("--build needs --watch PATH: it runs before each restart")
	case len(o.ignore) > 0:
		return errors.New("--watch-ignore needs --watch PATH")
	case o.rerun:
		return errors.New("--rerun needs --watch PATH: it sends the last request again after a restart")
	}
	return nil
}

// source makes the TUI's reloading source over sessions of newSession;
// record, when set, gets the rows it makes itself.
func (o *watchFlags) source(newSession func() session.Source, record func(mcp.Event)) (*watch.Source, error) {
	return watch.NewSource(newSession, watch.SourceOptions{
		Watch: watch.Options{Paths: o.paths, Ignore: o.ignore},
		Build: o.build, Rerun: o.rerun, Record: record,
	})
}
