package source

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestSyntaxOf(t *testing.T) {
	for path, want := range map[string]Syntax{
		"deploy/decode.yaml": SyntaxYAML, "values.yml": SyntaxYAML, "templates/_helpers.tpl": SyntaxYAML,
		"main.tf": SyntaxHCL, "prod.tfvars": SyntaxHCL, "serve.sh": SyntaxShell,
		"Dockerfile": SyntaxDockerfile, "Dockerfile.gpu": SyntaxDockerfile, "api.Dockerfile": SyntaxDockerfile,
		"Containerfile": SyntaxDockerfile, "start": SyntaxOther,
	} {
		if got := SyntaxOf(path); got != want {
			t.Errorf("SyntaxOf(%s) = %v, want %v", path, got, want)
		}
	}
}

// A set reads a file once and answers for every name of it; the first
// text added is the one every consumer sees.
func TestSetReadsOnce(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("a.sh", []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSet()
	f, err := s.Read("a.sh", SyntaxShell)
	if err != nil || string(f.Data) != "one\n" || f.Syntax != SyntaxShell {
		t.Fatalf("Read = %+v, %v", f, err)
	}
	if err := os.WriteFile("a.sh", []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("a.sh")
	for _, name := range []string{"a.sh", "./a.sh", abs, filepath.Join("sub", "..", "a.sh")} {
		if got := s.File(name); got != f {
			t.Errorf("File(%q) = %v, want the file read first", name, got)
		}
		if got, err := s.Read(name, SyntaxOther); got != f || err != nil {
			t.Errorf("Read(%q) read again: %v, %v", name, got, err)
		}
	}
	if held := s.Add(NewFile(abs, []byte("three\n"), SyntaxOther)); held != f {
		t.Error("Add replaced a file the set held")
	}
	if _, err := s.Read("missing.sh", SyntaxShell); err == nil || s.File("missing.sh") != nil || s.Len() != 1 {
		t.Errorf("a file that cannot be read: err %v, %d files", err, s.Len())
	}
	if err := os.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read("dir", SyntaxOther); err == nil {
		t.Error("a directory was read")
	}
}

func TestNilSet(t *testing.T) {
	var s *Set
	if s.File("a") != nil || s.Len() != 0 || s.Files() != nil {
		t.Error("a nil set holds files")
	}
	p := filepath.Join(t.TempDir(), "a")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Read(p, SyntaxOther); err != nil || string(f.Data) != "x" {
		t.Errorf("a nil set does not read: %v, %v", f, err)
	}
}

// Parsers add to one set from many goroutines (run under -race).
func TestSetConcurrent(t *testing.T) {
	s := NewSet()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				name := filepath.Join("/x", string(rune('a'+j%10)))
				f := s.Add(NewFile(name, []byte{byte(i)}, SyntaxOther))
				_ = f.Index(Breaks(j % int(breakRules))).Lines()
			}
		}()
	}
	wg.Wait()
	files := s.Files()
	if len(files) != 10 {
		t.Fatalf("%d files, want 10", len(files))
	}
	for i := 1; i < len(files); i++ {
		if files[i-1].Name >= files[i].Name {
			t.Errorf("Files not in order: %s before %s", files[i-1].Name, files[i].Name)
		}
	}
}

// A file let go with Pass is not held and is known as passed; reading it
// again (a --config file a launch names) holds it from then on; a held file
// is never passed.
func TestSetPass(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("cfg.yaml", []byte("model-path: m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSet()
	s.Pass("./cfg.yaml")
	if s.File("cfg.yaml") != nil || !s.Passed("cfg.yaml") || !s.Passed(filepath.Join(dir, "cfg.yaml")) {
		t.Fatalf("after Pass: held %v, passed %v", s.File("cfg.yaml"), s.Passed("cfg.yaml"))
	}
	f, err := s.Read("cfg.yaml", SyntaxYAML)
	if err != nil || string(f.Data) != "model-path: m\n" {
		t.Fatalf("Read after Pass: %v, %v", f, err)
	}
	if s.Passed("cfg.yaml") || s.File("cfg.yaml") != f {
		t.Error("a file read after Pass is not held")
	}
	s.Pass("cfg.yaml")
	if s.Passed("cfg.yaml") || s.File("cfg.yaml") != f {
		t.Error("Pass let a held file go")
	}
	var none *Set
	if none.Passed("cfg.yaml") {
		t.Error("a nil set passed a file")
	}
}

// Released indexes are built again, the same, on the next use.
func TestReleaseIndexes(t *testing.T) {
	f := NewFile("a.yaml", []byte("a: 1\r\nb: 2\rc: 3\n"), SyntaxYAML)
	s := NewSet()
	s.Add(f)
	before := map[Breaks]*Index{}
	for _, b := range []Breaks{LF, Newlines, YAML} {
		before[b] = f.Index(b)
	}
	s.ReleaseIndexes()
	for b, ix := range before {
		again := f.Index(b)
		if again == ix {
			t.Errorf("rule %v: the index was not released", b)
		}
		for off := 0; off <= len(f.Data); off++ {
			l1, c1 := ix.Pos(off)
			l2, c2 := again.Pos(off)
			if l1 != l2 || c1 != c2 {
				t.Errorf("rule %v offset %d: %d:%d, rebuilt %d:%d", b, off, l1, c1, l2, c2)
			}
		}
	}
}
