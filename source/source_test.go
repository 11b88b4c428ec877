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
