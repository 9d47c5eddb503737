package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the master reads what a program writes
// to the terminal, the slave is the program's terminal. Output
// post-processing is off (no LF to CR LF) and so is echo, so what is read
// is exactly what the program wrote.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	ioctl := func(fd uintptr, req uintptr, arg unsafe.Pointer) {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg)); e != 0 {
			t.Fatalf("ioctl %#x: %v", req, e)
		}
	}
	var unlock int32
	ioctl(m.Fd(), syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(m.Fd(), syscall.TIOCGPTN, unsafe.Pointer(&n))
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		_ = m.Close()
		t.Fatalf("the pseudo-terminal's slave: %v", err)
	}
	var tio syscall.Termios
	ioctl(s.Fd(), syscall.TCGETS, unsafe.Pointer(&tio))
	tio.Oflag &^= syscall.OPOST
	tio.Lflag &^= syscall.ECHO
	ioctl(s.Fd(), syscall.TCSETS, unsafe.Pointer(&tio))
	t.Cleanup(func() { _ = m.Close(); _ = s.Close() })
	return m, s
}

// runOnPTY runs mcpscope (this test binary as the CLI) with a
// pseudo-terminal as its stdin, stdout and stderr, in dir, with env added,
// typing input; it returns every byte mcpscope wrote to the terminal and
// its exit code.
func runOnPTY(t *testing.T, dir string, env []string, input string, args ...string) ([]byte, int) {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), asCLIVar+"=1"), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan []byte, 1)
	go func() {
		var buf bytes.Buffer
		_, _ = io.Copy(&buf, master) // ends with EIO when every slave is closed
		read <- buf.Bytes()
	}()
	if input != "" {
		if _, err := master.Write([]byte(input)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("mcpscope %q did not end", args)
	}
	_ = slave.Close()
	var out []byte
	select {
	case out = <-read:
	case <-time.After(10 * time.Second):
		t.Fatalf("mcpscope %q: the terminal was not closed", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out, code
}
