// Package suppress finds the suppressions written in the files of a run and
// in .kvlint.yaml, and marks the findings they silence.
//
// Forms (README.md, "Suppressions"):
//
//   - a comment `kvlint:ignore KV101[,KV104] -- reason` in a YAML, shell,
//     Dockerfile or HCL comment, on the finding's line or on the line above
//     it. The line it applies to takes its construct along: a YAML key or
//     sequence item with everything nested under it, a shell command with
//     its continuation lines (or a whole if/for/function), a Dockerfile
//     instruction with its continuation lines, an HCL line with the brackets
//     it opens;
//   - a comment `kvlint:ignore-file [IDs] -- reason`: the whole file;
//   - a Kubernetes annotation `kvlint.io/ignore: "KV101,KV301"` on an object
//     or its pod template: the object's lines, with the reason in the
//     annotation kvlint.io/ignore-reason or in a comment on the line;
//   - a .kvlint.yaml `ignore:` entry (config.IgnoreEntry): files matching a
//     pattern, until an optional date.
//
// Suppressed findings are kept, with diag.Diagnostic.Suppression set: the
// reporters and the exit code leave them out, SARIF carries them. What each
// suppression silenced becomes a rules.SuppressionFact, which the KV00x rules
// judge (no reason, silenced nothing, expired, unreadable).
//
// Comments are found with a tokenizer for each format, so a "#" inside a
// quoted YAML scalar, a shell word or an HCL string is not a comment; a shell
// script inside a YAML block scalar (args: - |) has its own comments seen
// too.
package suppress
