package terraform

import (
	"reflect"
	"testing"
)

// kubernetes_manifest with yamldecode(templatefile(...)): the flag set in
// tfvars points there, through the variable, the call's argument and the
// template line; a data source makes its flag unknown while the rest of the
// manifest is still read.
func TestManifestTemplate(t *testing.T) {
	servers, errs := ParseModule("testdata/manifest", Options{})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	const d = "testdata/manifest/"
	s := serverNamed(t, servers, "decode")
	v := s.Args["--max-total-tokens"]
	// The variable, the argument of the templatefile call, and the template
	// line that printed the value.
	want := []string{d + "terraform.tfvars:1:15-1:20", "variable " + d + "main.tf:6:1-6:23",
		"reference " + d + "main.tf:18:22-18:37", "template " + d + "decode.yaml.tftpl:19:18-19:29"}
	if got := chain("", v); v.Raw != "65536" || !v.Known || !reflect.DeepEqual(got, want) {
		t.Errorf("--max-total-tokens %q known=%v\n got %q\nwant %q", v.Raw, v.Known, got, want)
	}
	if v := s.Args["--model-path"]; at("", v.Span) != d+"decode.yaml.tftpl:15:16-15:40" {
		t.Errorf("--model-path at %s", at("", v.Span))
	}
	if _, ok := s.Args["--page-size"]; !ok {
		t.Errorf("--page-size from the %%{ for } loop is missing")
	}

	ssm := serverNamed(t, servers, "decode-ssm")
	u := ssm.Args["--max-total-tokens"]
	if u.Known || u.Raw != "pool_tokens" || at("", u.Span) != d+"decode.yaml.tftpl:19:18-19:29" {
		t.Errorf("unknown pool: %q known=%v at %s", u.Raw, u.Known, at("", u.Span))
	}
	if c := ssm.Args["--context-length"]; c.Raw != "131072" || !c.Known {
		t.Errorf("context length beside an unknown: %q known=%v", c.Raw, c.Known)
	}
}

func TestResourceShapes(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		// want maps server name → flag → raw value ("?" = unknown)
		want map[string]map[string]string
		errs int
	}{
		{"count switches a resource off and on", map[string]string{"main.tf": `
variable "enabled" { default = false }
resource "kubernetes_pod" "off" {
  count = var.enabled ? 1 : 0
  metadata { name = "off" }
  spec {
    container { command = ["python3", "-m", "sglang.launch_server", "--tp-size", "2"] }
  }
}
resource "kubernetes_pod" "two" {
  count = 2
  metadata { name = "two-${count.index}" }
  spec {
    container { command = ["python3", "-m", "sglang.launch_server", "--dp-size", count.index + 1] }
  }
}
`}, map[string]map[string]string{"two-0": {"--dp-size": "1"}, "two-1": {"--dp-size": "2"}}, 0},
		{"for_each over a map", map[string]string{"main.tf": `
locals {
  pools = {
    prefill = { mode = "prefill", tokens = 100000 }
    decode  = { mode = "decode", tokens = 400000 }
  }
}
resource "kubernetes_stateful_set_v1" "pd" {
  for_each = local.pools
  metadata { name = each.key }
  spec {
    template {
      spec {
        container {
          command = ["python3", "-m", "sglang.launch_server"]
          args    = ["--disaggregation-mode", each.value.mode, "--max-total-tokens", each.value.tokens]
        }
      }
    }
  }
}
`}, map[string]map[string]string{
			"prefill": {"--disaggregation-mode": "prefill", "--max-total-tokens": "100000"},
			"decode":  {"--disaggregation-mode": "decode", "--max-total-tokens": "400000"}}, 0},
		{"unknown values from data sources and resources", map[string]string{"main.tf": `
data "kubernetes_config_map" "cfg" {
  metadata { name = "llm" }
}
resource "random_id" "x" { byte_length = 4 }
resource "kubernetes_deployment" "d" {
  metadata { name = "d-${random_id.x.hex}" }
  spec {
    template {
      spec {
        container {
          command = ["python3", "-m", "sglang.launch_server",
            "--max-total-tokens", data.kubernetes_config_map.cfg.data["tokens"],
            "--context-length=${data.kubernetes_config_map.cfg.data.ctx}",
            "--page-size", "32"]
        }
      }
    }
  }
}
`}, map[string]map[string]string{"d-${random_id.x.hex}": {
			"--max-total-tokens": "?data.kubernetes_config_map.cfg.data[\"tokens\"]",
			"--context-length":   "?data.kubernetes_config_map.cfg.data.ctx",
			"--page-size":        "32"}}, 0},
		{"sh -c script with interpolation", map[string]string{
			"main.tf": `
variable "tokens" { type = number }
resource "kubernetes_job_v1" "bench" {
  metadata { name = "bench" }
  spec {
    template {
      spec {
        container {
          command = ["/bin/sh", "-c", <<-EOT
            echo starting
            exec python3 -m sglang.launch_server \
              --max-total-tokens ${var.tokens} --page-size 16
          EOT
          ]
        }
      }
    }
  }
}
`, "terraform.tfvars": "tokens = 4096\n"}, map[string]map[string]string{"bench": {"--max-total-tokens": "4096", "--page-size": "16"}}, 0},
		{"kubernetes_manifest as an HCL object", map[string]string{"main.tf": `
resource "kubernetes_manifest" "lws" {
  manifest = {
    apiVersion = "leaderworkerset.x-k8s.io/v1"
    kind       = "LeaderWorkerSet"
    metadata   = { name = "big" }
    spec = {
      leaderWorkerTemplate = {
        size = 2
        leaderTemplate = {
          spec = { containers = [{ name = "l", command = ["python3", "-m", "sglang.launch_server", "--tp-size", "16"] }] }
        }
      }
    }
  }
}
`}, map[string]map[string]string{"big/leader": {"--tp-size": "16"}}, 0},
		{"yamldecode(file())", map[string]string{
			"main.tf":  `resource "kubernetes_manifest" "m" { manifest = yamldecode(file("${path.module}/pod.yaml")) }` + "\n",
			"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: raw\nspec:\n  containers:\n    - command: [python3, -m, sglang.launch_server, --tp-size, \"4\"]\n"},
			map[string]map[string]string{"raw": {"--tp-size": "4"}}, 0},
		{"functions kvlint does not implement are unknown, not errors", map[string]string{"main.tf": `
locals { subnet = cidrsubnet("10.0.0.0/16", 8, 1) }
resource "kubernetes_pod" "p" {
  metadata { name = "p" }
  spec {
    container { command = ["python3", "-m", "sglang.launch_server", "--host", local.subnet, "--tp-size", "2"] }
  }
}
`}, map[string]map[string]string{"p": {"--host": "?local.subnet", "--tp-size": "2"}}, 0},
		{"TF_VAR for a list", map[string]string{"main.tf": `
variable "extra" { type = list(string) }
resource "kubernetes_pod" "p" {
  metadata { name = "p" }
  spec {
    container { command = concat(["python3", "-m", "sglang.launch_server"], var.extra) }
  }
}
`}, map[string]map[string]string{"p": {"--tp-size": "8"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeModule(t, tt.files)
			servers, errs := ParseModule(dir, Options{Environ: []string{`TF_VAR_extra=["--tp-size", "8"]`}})
			if len(errs) != tt.errs {
				t.Fatalf("errors: %q", errorTexts(dir, errs))
			}
			got := map[string]map[string]string{}
			for _, s := range servers {
				flags := map[string]string{}
				for name, want := range tt.want[s.Name] {
					_ = want
					v, ok := s.Args[name]
					if !ok {
						continue
					}
					if v.Known {
						flags[name] = v.Raw
					} else {
						flags[name] = "?" + v.Raw
					}
				}
				got[s.Name] = flags
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A script's flags point into the heredoc, and a value interpolated from a
// variable points at the tfvars line.
func TestScriptSpans(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.tf": `variable "tokens" { type = number }
resource "kubernetes_pod" "p" {
  metadata { name = "p" }
  spec {
    container {
      command = ["sh", "-c", "python3 -m sglang.launch_server --max-total-tokens ${var.tokens} --page-size 16"]
    }
  }
}
`, "terraform.tfvars": "tokens = 4096\n"})
	servers, errs := ParseModule(dir, Options{})
	if len(errs) > 0 || len(servers) != 1 {
		t.Fatalf("servers %d errors %q", len(servers), errorTexts(dir, errs))
	}
	s := servers[0]
	if got := chain(dir, s.Args["--max-total-tokens"]); !reflect.DeepEqual(got, []string{"terraform.tfvars:1:10-1:14", "variable main.tf:1:1-1:18", "reference main.tf:6:84-6:94"}) {
		t.Errorf("--max-total-tokens chain %q", got)
	}
	if got := at(dir, s.Args["--page-size"].Span); got != "main.tf:6:108-6:110" {
		t.Errorf("--page-size at %s", got)
	}
	if got := at(dir, s.Span); got != "main.tf:6:42-6:62" {
		t.Errorf("server at %s", got)
	}
}
