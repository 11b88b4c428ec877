package deploy

// Workload is the traffic a deployment is meant to carry (.kvlint.yaml
// workload:), which verify runs it at.
type Workload struct {
	// Concurrency is the requests in flight at peak.
	Concurrency int `json:"concurrency"`
	// Prompt and Output are the token counts of a request's prompt and of
	// its answer (its max_tokens).
	Prompt TokenDist `json:"prompt_tokens"`
	Output TokenDist `json:"output_tokens"`
	// Tenants is how many tenants send it.
	Tenants int `json:"tenants"`
	// Source is "declared" when a .kvlint.yaml says it, "default" when it
	// is DefaultWorkload.
	Source WorkloadSource `json:"source"`
	// Where is the .kvlint.yaml position of the declaration ("" for the
	// default).
	Where string `json:"where,omitempty"`
}

// TokenDist is a distribution of token counts by its median and its
// maximum: lengths are drawn around the median and never above the max.
type TokenDist struct {
	Median int `json:"median"`
	Max    int `json:"max"`
}

// WorkloadSource says where a workload comes from.
type WorkloadSource string

const (
	WorkloadDeclared WorkloadSource = "declared"
	WorkloadDefault  WorkloadSource = "default"
)

// DefaultWorkload is the traffic assumed when no .kvlint.yaml declares one:
// a moderately loaded chat service (32 requests in flight, prompts of 2,000
// tokens at the median and 8,000 at most, answers of 300 and 1,000, from 16
// tenants). It is reported with source "default" so that a verdict resting
// on it reads as resting on an assumption.
func DefaultWorkload() Workload {
	return Workload{
		Concurrency: 32,
		Prompt:      TokenDist{Median: 2000, Max: 8000},
		Output:      TokenDist{Median: 300, Max: 1000},
		Tenants:     16,
		Source:      WorkloadDefault,
	}
}
