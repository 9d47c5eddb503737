package mcp

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/errline"
)

// LocalErrorKind says why a request ended without an answer.
type LocalErrorKind uint8

const (
	// Timeout means no answer came within the request's timeout; notifications/cancelled was sent.
	Timeout LocalErrorKind = iota + 1
	// Cancelled means the caller gave up; notifications/cancelled was sent.
	Cancelled
	// ConnectionLost means the transport ended (the server exited, for instance).
	ConnectionLost
	// WriteFailed means the request could not be written.
	WriteFailed
	// Unmatched means a handshake request got no answer, but an answer with an id
	// matching no request came and nothing else followed (Err is an
	// [*UnmatchedAnswerError] naming both ids).
	Unmatched
	// SignInFailed means the request's Authorizer failed (Err is an
	// [*AuthorizationError]): a sign-in that did not work, credentials
	// that could not be had. The server may be reachable and well.
	SignInFailed
)

// UnmatchedAnswerError says which id mcpscope sent and which the server
// answered with, when the two do not match.
type UnmatchedAnswerError struct {
	Method   string
	Sent     ID
	Received ID
}

func (e *UnmatchedAnswerError) Error() string {
	return fmt.Sprintf("the server answered with id %s, but %s was sent with id %s and got no answer", e.Received, e.Method, e.Sent)
}

func (k LocalErrorKind) String() string {
	switch k {
	case Timeout:
		return "timeout"
	case Cancelled:
		return "cancelled"
	case ConnectionLost:
		return "connection lost"
	case WriteFailed:
		return "write failed"
	case Unmatched:
		return "unmatched answer"
	case SignInFailed:
		return "sign-in failed"
	}
	return "local error"
}

// LocalError is a request failure that mcpscope synthesised: no error frame
// came from the server. It is kept distinct from [RPCError] everywhere.
type LocalError struct {
	Kind    LocalErrorKind
	Method  string
	ID      ID
	ReqSeq  int64         // the request frame
	Elapsed time.Duration // from the request to the failure
	// CancelSent says notifications/cancelled went to the server (it is not
	// sent for initialize, which the spec forbids cancelling, nor for probes).
	CancelSent bool
	// For a timeout: Progressed says notifications/progress came for the
	// request, Silent how long nothing came (no answer, no progress) before
	// mcpscope gave up, and AtMax that it gave up at the request's maximum
	// while progress was still coming (the spec's "SHOULD enforce a maximum
	// timeout, regardless of progress notifications").
	Progressed bool
	Silent     time.Duration
	AtMax      bool
	Err        error // the cause, e.g. an *ExitError
}

func (e *LocalError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (id %s): ", e.Method, e.ID)
	switch e.Kind {
	case Timeout:
		fmt.Fprintf(&b, "no answer after %s", e.Elapsed.Round(time.Millisecond))
		switch {
		case e.AtMax:
			b.WriteString(" (the maximum; progress was still coming)")
		case e.Progressed:
			fmt.Fprintf(&b, " (nothing, not even progress, for the last %s)", e.Silent.Round(time.Millisecond))
		}
	case Cancelled:
		b.WriteString("cancelled")
	default:
		b.WriteString(e.Kind.String())
	}
	if e.CancelSent {
		b.WriteString("; sent notifications/cancelled")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *LocalError) Unwrap() error { return e.Err }

// IsTimeout reports whether err is a request timeout.
func IsTimeout(err error) bool {
	var le *LocalError
	return errors.As(err, &le) && le.Kind == Timeout
}

// ExitError reports how the server process ended.
type ExitError struct {
	Code   int    // exit status; -1 when killed by a signal or unknown
	Signal string // the signal that ended it, if any
	Forced string // "", "SIGTERM" or "SIGKILL": what mcpscope needed to stop it
	// Hurried says the SIGKILL came before the server had its grace after
	// SIGTERM (mcpscope's own deadline ran out first): it did not ignore
	// SIGTERM, it was not given the time to act on it.
	Hurried  bool
	Expected bool // mcpscope asked it to stop
	// StoppedFor says why mcpscope stopped it, when it did ("the
	// reload"): the exit is then mcpscope's doing, whatever its status.
	StoppedFor string
	LastStderr []string
	// ErrorLine is the line of its stderr that says what went wrong
	// (errline.Pick over more lines than LastStderr holds: Node's error is
	// often twenty lines before its end); "" when unknown. See Headline.
	ErrorLine string
	Err       error // a wait error that is not an exit status

	// ClientSignal is the signal a tap received from its client (the
	// client's way of closing) and passed on to the server: the server's
	// end is then the client's doing.
	ClientSignal string
}

// Headline is the line of the server's stderr that says what went
// wrong: ErrorLine, or errline.Pick over the last lines; "" when it wrote
// nothing that says anything.
func (e *ExitError) Headline() string {
	if e.ErrorLine != "" {
		return e.ErrorLine
	}
	return errline.Pick(e.LastStderr)
}

func (e *ExitError) Error() string {
	var b strings.Builder
	if e.StoppedFor != "" {
		fmt.Fprintf(&b, "mcpscope stopped the server for %s: ", e.StoppedFor)
	}
	b.WriteString("server ")
	switch {
	case e.Err != nil:
		fmt.Fprintf(&b, "ended: %v", e.Err)
	case e.Signal != "":
		fmt.Fprintf(&b, "was killed by %s", e.Signal)
	default:
		fmt.Fprintf(&b, "exited with status %d", e.Code)
	}
	switch {
	case e.ClientSignal != "" && e.ClientSignal == e.Signal:
		b.WriteString(", which its client sent (the tap passed it on)")
	case e.ClientSignal != "":
		fmt.Fprintf(&b, " after its client sent %s (the tap passed it on)", e.ClientSignal)
	}
	if e.Forced != "" {
		fmt.Fprintf(&b, " (mcpscope had to send %s)", e.Forced)
	}
	if h := e.Headline(); h != "" && e.Code != 0 && e.StoppedFor == "" {
		// A server that failed: its error first, the tail after.
		b.WriteString(": ")
		b.WriteString(h)
	}
	if len(e.LastStderr) > 0 {
		b.WriteString("; last stderr lines:")
		for _, l := range e.LastStderr {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	} else {
		b.WriteString("; it wrote nothing to stderr")
	}
	return b.String()
}

func (e *ExitError) Unwrap() error { return e.Err }

// HandshakeError means the connection could not be set up: the server
// refused or mangled the handshake, or answered a version mcpscope does not
// speak.
type HandshakeError struct {
	Reason string
	Err    error
}

func (e *HandshakeError) Error() string {
	if e.Err != nil {
		return "handshake failed: " + e.Reason + ": " + e.Err.Error()
	}
	return "handshake failed: " + e.Reason
}

func (e *HandshakeError) Unwrap() error { return e.Err }

// AuthorizationError is an error of the transport's Authorizer (getting
// credentials, or the flow a 401 or 403 ran): the sign-in failed, not the
// connection. Err says why (mcp/auth's *Failure names cause and fix).
type AuthorizationError struct{ Err error }

func (e *AuthorizationError) Error() string { return e.Err.Error() }

func (e *AuthorizationError) Unwrap() error { return e.Err }

// failedKind is how a request ends when the transport says its answer
// will never come: a sign-in that failed, else a lost connection.
func failedKind(err error) LocalErrorKind {
	var ae *AuthorizationError
	if errors.As(err, &ae) {
		return SignInFailed
	}
	return ConnectionLost
}

// UnreachableError says the server could not be reached at all: an HTTP
// request found nobody to answer it (connection refused, reset, a name
// that does not resolve), or a write to a server's input failed. The
// client then shows its state as [StateLost] until the server answers
// again.
type UnreachableError struct {
	// Op is what could not be done: "GET http://host/mcp", "write to
	// server stdin".
	Op  string
	Err error
}

func (e *UnreachableError) Error() string { return e.Err.Error() }

func (e *UnreachableError) Unwrap() error { return e.Err }

// Reason is the innermost cause, short enough for a status line:
// "connection refused", "EOF", "broken pipe".
func (e *UnreachableError) Reason() string {
	err := e.Err
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// ErrClosed is returned for requests made after the client was closed.
var ErrClosed = errors.New("mcp: client closed")

// ErrNotWritten is the cause of a request given up before any of it was
// written: an earlier message was still being written (the server was not
// reading its input). Nothing reached the server, so nothing is cancelled.
var ErrNotWritten = errors.New("never written: an earlier message was still being written (is the server reading its input?)")

// ErrWriteBlocked is the cause of a request given up while it was still
// being written: the server stopped reading its input. The rest of it and
// notifications/cancelled follow if the server reads again.
var ErrWriteBlocked = errors.New("still being written: the server is not reading its input")

// StdoutClosedError ends a stdio connection whose server closed its
// standard output but kept running: nothing it does can reach mcpscope
// any more, so waiting for answers is pointless. mcpscope stops the
// process when the client is closed.
type StdoutClosedError struct {
	PID        int
	LastStderr []string
}

func (e *StdoutClosedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server closed its stdout but is still running (pid %d): it can answer nothing more", e.PID)
	if h := errline.Pick(e.LastStderr); h != "" {
		b.WriteString("; its stderr says: ")
		b.WriteString(h)
	}
	if len(e.LastStderr) > 0 {
		b.WriteString("; last stderr lines:")
		for _, l := range e.LastStderr {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

// StoppedError is the cause given to a request that timed out while the
// server process was stopped (SIGSTOP, or a debugger holding it).
type StoppedError struct {
	PID   int
	State string // from /proc: "T" stopped, "t" stopped by a debugger
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("the server process (pid %d) is stopped (SIGSTOP, or a debugger holds it): it cannot answer until it is continued (kill -CONT %d)", e.PID, e.PID)
}
