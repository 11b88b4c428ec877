package dockerfile

import (
	"reflect"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

var testImages = engine.NewImageTable([]engine.Image{
	{Repository: "corp/sglang", Tags: "*", Engine: deploy.EngineSGLang,
		Entrypoint: []string{"python3", "-m", "sglang.launch_server"}, Cmd: []string{"--help"}, Source: "row-sgl"},
})

func parseImages(text string) ([]*deploy.Server, error) {
	servers, errs := ParseFileWith(source.NewFile("Dockerfile", []byte(text), source.SyntaxDockerfile), nil, testImages)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return servers, nil
}

func TestImageEntrypoint(t *testing.T) {
	tests := []struct {
		name, text string
		servers    int
		model      string // span of --model-path's value (exec-form words keep their quotes)
		program    string // span of the server (its program word)
		words      []string
	}{
		{"CMD after the image's ENTRYPOINT",
			"FROM corp/sglang:2025.06\n" + `CMD ["--model-path", "m", "--tp-size", "2"]` + "\n",
			1, "2:22-2:25", "1:6-1:25", []string{"python3", "-m", "sglang.launch_server"}},
		{"a stage built on a stage keeps the image",
			"FROM corp/sglang:1 AS base\nENV A=1\nFROM base\n" + `CMD ["--model-path", "m"]` + "\n",
			1, "4:22-4:25", "1:6-1:19", []string{"python3", "-m", "sglang.launch_server"}},
		{"CMD in the base stage, inherited",
			"FROM corp/sglang:1 AS base\n" + `CMD ["--model-path", "m"]` + "\nFROM base\nRUN true\n",
			1, "2:22-2:25", "1:6-1:19", []string{"python3", "-m", "sglang.launch_server"}},
		{"own ENTRYPOINT: the image adds nothing",
			"FROM corp/sglang:1\n" + `ENTRYPOINT ["python3", "-m", "sglang.launch_server"]` + "\n" + `CMD ["--model-path", "m"]` + "\n",
			1, "3:22-3:25", "2:30-2:52", nil},
		{"nothing set: the image's default is no launch of this file",
			"FROM corp/sglang:1\nENV HF_HOME=/models\n", 0, "", "", nil},
		{"ENTRYPOINT [] clears the image's",
			"FROM corp/sglang:1\nENTRYPOINT []\n" + `CMD ["--model-path", "m"]` + "\n", 0, "", "", nil},
		{"unknown image: options alone are no launch",
			"FROM corp/other:1\n" + `CMD ["--model-path", "m"]` + "\n", 0, "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			servers, err := parseImages(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(servers) != tc.servers {
				t.Fatalf("servers %d, want %d", len(servers), tc.servers)
			}
			if tc.servers == 0 {
				return
			}
			s := servers[0]
			if got := at(s.Args["--model-path"].Span); got != tc.model {
				t.Errorf("--model-path at %s, want %s", got, tc.model)
			}
			if got := at(s.Span); got != tc.program {
				t.Errorf("server at %s, want %s", got, tc.program)
			}
			var words []string
			if s.Entrypoint != nil {
				words = s.Entrypoint.Words
			}
			if !reflect.DeepEqual(words, tc.words) {
				t.Errorf("entrypoint words %q, want %q", words, tc.words)
			}
		})
	}
}
