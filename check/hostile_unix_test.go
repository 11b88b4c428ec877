//go:build unix

package check

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func init() {
	hostileCases = append(hostileCases,
		hostileCase{name: "named pipe", file: "pipe.yaml", message: "is a named pipe, not a regular file; not read",
			setup: func(t *testing.T, dir string, _ *Options) []string {
				// With no writer, reading a named pipe waits forever.
				p := filepath.Join(dir, "pipe.yaml")
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{p}
			}},
		hostileCase{name: "unreadable file", file: "secret.yaml", message: "permission denied", asUser: true,
			setup: func(t *testing.T, dir string, _ *Options) []string {
				p := writeFile(t, filepath.Join(dir, "secret.yaml"), []byte("kind: Pod\n"))
				if err := os.Chmod(p, 0); err != nil {
					t.Fatal(err)
				}
				return []string{p}
			}},
	)
	runAsUser = runAsNobody
}

// nobody is the unprivileged user a root test run drops to.
const nobody = 65534

// runAsNobody runs the current subtest again in a copy of the test binary as
// nobody. Root reads a file whatever its mode, so a file root cannot read
// does not exist; CI runs as root, and the case must still be tested there.
func runAsNobody(t *testing.T) {
	t.Helper()
	// A directory the user nobody may enter, holding what the child
	// needs: the test binary and the good neighbour (the repository may
	// be closed to other users).
	dir, err := os.MkdirTemp("", "kvlint-hostile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "check.test")
	copyFile(t, self, bin, 0o755)
	neighbour := filepath.Join(dir, "small.sh")
	copyFile(t, goodNeighbour, neighbour, 0o644)
	// The child's own temporary files, where it may write whatever the
	// system's temporary directory allows.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}

	run := "^" + strings.ReplaceAll(t.Name(), "/", "$/^") + "$"
	cmd := exec.Command(bin, "-test.run="+run, "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{neighbourEnv + "=" + neighbour, "TMPDIR=" + tmp, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		// The system forbids the mechanism itself (no CAP_SETUID, or a
		// temporary directory mounted noexec): nothing to test with.
		t.Skipf("cannot run a process as uid %d here: %v", nobody, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("as uid %d: %v\n%s", nobody, err, out.String())
	}
	if !strings.Contains(out.String(), "--- PASS: "+t.Name()) {
		t.Fatalf("as uid %d the case did not run:\n%s", nobody, out.String())
	}
	t.Logf("ran as uid %d", nobody)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, mode); err != nil {
		t.Fatal(err)
	}
}
